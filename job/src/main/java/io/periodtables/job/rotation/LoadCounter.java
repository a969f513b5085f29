package io.periodtables.job.rotation;

import io.periodtables.rotation.lifecycle.TableLoad;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * A side branch that tells the rotation how much a sink is given, as partial sums of this subtask
 * per table and second of event time, sent once the watermark has passed the second. Only event
 * time is counted: how fast a backlog is read (a backfill, a replay) changes no count, so the
 * tables sized from them are the same at any read speed. Whatever is open is sent before every
 * checkpoint barrier and at the end of input, so the operator keeps no state of its own: what it
 * sent is in the rotation's checkpointed state, what it had not is recounted on replay.
 */
@Internal
abstract class LoadCounter<T> extends AbstractStreamOperator<TableLoad>
        implements OneInputStreamOperator<T, TableLoad> {
    private static final long serialVersionUID = 1L;

    private transient Map<Second, Long> open;
    /** The last watermark this operator received. */
    protected transient long watermark;

    /** One table's second of event time. */
    private record Second(String table, long second) {}

    LoadCounter() {
        // Chained to the operator whose output it counts: no serialization hop per element.
        setChainingStrategy(ChainingStrategy.ALWAYS);
    }

    @Override
    public void open() throws Exception {
        super.open();
        watermark = Long.MIN_VALUE;
        open = new HashMap<>();
    }

    /** Counts {@code units} written to {@code table} at {@code eventMillis}. */
    protected final void count(String table, long eventMillis, long units) {
        open.merge(new Second(table, Math.floorDiv(eventMillis, 1000L)), units, Long::sum);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        watermark = mark.getTimestamp();
        long passed = mark.getTimestamp() < Long.MIN_VALUE + 1000
                ? Long.MIN_VALUE
                : Math.floorDiv(mark.getTimestamp() - 999, 1000L) + 1;
        for (Iterator<Map.Entry<Second, Long>> it = open.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Second, Long> e = it.next();
            if (e.getKey().second() < passed) {
                emit(e);
                it.remove();
            }
        }
        super.processWatermark(mark);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        emitAll();
    }

    @Override
    public void finish() throws Exception {
        emitAll();
        super.finish();
    }

    private void emitAll() {
        open.entrySet().forEach(this::emit);
        open.clear();
    }

    private void emit(Map.Entry<Second, Long> e) {
        output.collect(new StreamRecord<>(
                new TableLoad(e.getKey().table(), e.getKey().second(), e.getValue()),
                e.getKey().second() * 1000 + 999));
    }
}
