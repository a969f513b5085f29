package io.periodtables.job.time;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.EndOfInput;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.model.SinkRecord;
import java.time.Duration;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;

/**
 * Checkpoints the event-time watermark and re-emits it after a restore. Flink does not keep
 * watermarks in checkpoints (FLINK-5601): a restored job would start with none, so a reading
 * that was late before a failure — and already written to the late table — would be replayed as
 * on time and stored a second time in its period table. With the restored watermark in front of
 * the replay, it is late again and rewrites the same late item.
 *
 * <p>The state is a union list: after a change of parallelism every subtask takes the minimum
 * of the restored watermarks (those of subtasks that had one), the job's global watermark at
 * the checkpoint. The restored watermark is emitted as soon as the operator runs, and every
 * lower watermark from upstream (the source's per-shard watermarks start from nothing after a
 * restore) is held back. A reading late against it is routed late right here, so the decision
 * does not wait for every input of the window operator to have sent it. Chained to the source,
 * it costs a comparison per record.
 */
@Internal
public final class CheckpointedWatermark extends AbstractStreamOperator<SinkRecord>
        implements OneInputStreamOperator<SinkRecord, SinkRecord> {
    private static final long serialVersionUID = 1L;

    private final PeriodCalendar calendar;
    private final Duration allowedLateness;

    private transient ListState<Long> state;
    private transient long current;
    private transient long restored;
    /** The restored watermark: readings late against it were late before the restore too. */
    private transient long floor;

    public CheckpointedWatermark(PeriodTablesConfig config) {
        this.calendar = config.calendar();
        this.allowedLateness = config.get(ConfigKeys.ALLOWED_LATENESS);
        // An AbstractStreamOperator heads its own task unless told otherwise.
        setChainingStrategy(ChainingStrategy.ALWAYS);
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        state = context.getOperatorStateStore()
                .getUnionListState(new ListStateDescriptor<>("event-time-watermark", LongSerializer.INSTANCE));
        current = Long.MIN_VALUE;
        restored = Long.MIN_VALUE;
        if (context.isRestored()) {
            // A subtask that had seen no watermark, or only the end of the input (a drained stop),
            // tells nothing of how far event time had come.
            for (Long watermark : state.get()) {
                if (watermark > Long.MIN_VALUE && !EndOfInput.is(watermark)) {
                    restored = restored == Long.MIN_VALUE ? watermark : Math.min(restored, watermark);
                }
            }
        }
        floor = restored;
    }

    /**
     * The restored watermark is in force from the start, not from the first record: a subtask
     * that receives nothing (a source subtask without a shard after a rescale) would otherwise
     * hold every downstream operator at no watermark until idleness, and a backlog passing in
     * that time would be judged on time.
     */
    @Override
    public void open() throws Exception {
        super.open();
        if (restored > Long.MIN_VALUE) {
            ProcessingTimeService time = getProcessingTimeService();
            time.registerTimer(time.getCurrentProcessingTime(), ignored -> emitRestored());
        }
    }

    @Override
    public void processElement(StreamRecord<SinkRecord> element) throws Exception {
        emitRestored();
        SinkRecord record = element.getValue();
        if (record.kind() == SinkRecord.Kind.PERIOD
                && floor > Long.MIN_VALUE
                && isLate(record.reading().eventMillis())) {
            // Late against the watermark the job had reached at the checkpoint: decided here, not
            // left to the window operator, whose inputs may not all have sent it yet.
            element.replace(SinkRecord.late(record.reading(), floor));
        }
        output.collect(element);
    }

    private boolean isLate(long eventMillis) {
        if (eventMillis > floor) {
            return false; // its period ends after it, so its grace ends after the floor: no calendar lookup
        }
        try {
            return calendar.periodOf(eventMillis).closedBy(floor, allowedLateness);
        } catch (IllegalArgumentException outsideTableNames) {
            return false; // the sink rejects it
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        emitRestored();
        if (mark.getTimestamp() > current) {
            current = mark.getTimestamp();
            super.processWatermark(mark);
        }
    }

    /** Once after a restore, before anything else passes: the watermark the job had reached. */
    private void emitRestored() throws Exception {
        if (restored > current) {
            current = restored;
            super.processWatermark(new Watermark(restored));
        }
        restored = Long.MIN_VALUE;
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        state.update(List.of(Math.max(current, restored)));
    }
}
