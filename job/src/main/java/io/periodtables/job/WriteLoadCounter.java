package io.periodtables.job;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.item.ReadingItems;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.TableNaming;
import io.periodtables.model.Reading;
import io.periodtables.rotation.lifecycle.TableLoad;
import java.time.Duration;
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
 * The side branch that tells the rotation how much the sink is given: per period table and
 * second of event time, the write units ({@link DynamoDbItemSize}, one per started KB) of the
 * items of the readings that go to the period windows (the readings the windows will drop as
 * late, and those the sink rejects, are not counted), as partial sums of this subtask. It sits
 * before the windows, not after them: the windows release readings when their trigger fires,
 * after the watermark may have passed their second, while before them every reading of a second
 * precedes the watermark that passes it. A second's sum is sent once the watermark has passed it, and whatever is open is sent before every
 * checkpoint barrier and at the end of input, so the operator keeps no state of its own: what
 * it sent is in the rotation's checkpointed state, what it had not is recounted on replay.
 */
@Internal
final class WriteLoadCounter extends AbstractStreamOperator<TableLoad>
        implements OneInputStreamOperator<Reading, TableLoad> {
    private static final long serialVersionUID = 1L;

    private final PeriodTablesConfig config;
    private transient TableNaming naming;
    private transient ReadingItems items;
    private transient Map<Second, Long> open;
    private transient PeriodCalendar calendar;
    private transient Duration lateness;
    private transient long watermark;
    /** The last reading's period and its table name: readings come in runs of one period. */
    private transient Period lastPeriod;

    private transient String lastTable;

    /** One table's second of event time. */
    private record Second(String table, long second) {}

    WriteLoadCounter(PeriodTablesConfig config) {
        this.config = config;
        // Chained to the operator that splits the readings off: no serialization hop per reading.
        setChainingStrategy(ChainingStrategy.ALWAYS);
    }

    @Override
    public void open() throws Exception {
        super.open();
        naming = config.naming();
        calendar = config.calendar();
        lateness = config.get(ConfigKeys.ALLOWED_LATENESS);
        watermark = Long.MIN_VALUE;
        items = new ReadingItems(config);
        open = new HashMap<>();
    }

    @Override
    public void processElement(StreamRecord<Reading> element) {
        Reading reading = element.getValue();
        long millis = reading.eventMillis();
        Period period = calendar.periodOf(millis);
        if (period.closedBy(watermark, lateness)) {
            return; // the windows route it to the late table (on-demand), as Flink's window lateness
        }
        long units = items.writeUnits(reading);
        if (units == 0) {
            return; // the sink writes it to the rejected table (on-demand) instead
        }
        if (!period.equals(lastPeriod)) {
            lastPeriod = period;
            lastTable = naming.periodTable(period);
        }
        open.merge(new Second(lastTable, Math.floorDiv(millis, 1000L)), units, Long::sum);
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
