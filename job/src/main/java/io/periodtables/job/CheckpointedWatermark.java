package io.periodtables.job;

import io.periodtables.sink.Reading;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import java.util.List;

/**
 * Checkpoints the event-time watermark and re-emits it after a restore. Flink does not keep
 * watermarks in checkpoints (FLINK-5601): a restored job would start with none, so a reading
 * that was late before a failure — and already written to the late table — would be replayed as
 * on time and stored a second time in its period table. With the restored watermark in front of
 * the replay, it is late again and rewrites the same late item.
 *
 * <p>The state is a union list: after a change of parallelism every subtask takes the minimum
 * of the restored watermarks (those of subtasks that had one), the job's global watermark at
 * the checkpoint. Chained right after the watermark assigner, it costs a comparison per record.
 */
@Internal
public final class CheckpointedWatermark extends AbstractStreamOperator<Reading> implements OneInputStreamOperator<Reading, Reading> {
    private static final long serialVersionUID = 1L;

    private transient ListState<Long> state;
    private transient long current;
    private transient long restored;

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        state = context.getOperatorStateStore().getUnionListState(
                new ListStateDescriptor<>("event-time-watermark", LongSerializer.INSTANCE));
        current = Long.MIN_VALUE;
        restored = Long.MIN_VALUE;
        if (context.isRestored()) {
            long min = Long.MAX_VALUE;
            for (Long watermark : state.get()) {
                if (watermark > Long.MIN_VALUE) {
                    min = Math.min(min, watermark);
                }
            }
            restored = min == Long.MAX_VALUE ? Long.MIN_VALUE : min;
        }
    }

    @Override
    public void processElement(StreamRecord<Reading> element) throws Exception {
        emitRestored();
        output.collect(element);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        emitRestored();
        if (mark.getTimestamp() > current) {
            current = mark.getTimestamp();
            super.processWatermark(mark);
        }
    }

    /** Before the first record after a restore: the watermark the job had reached. */
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
