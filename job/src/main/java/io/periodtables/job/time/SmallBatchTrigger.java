package io.periodtables.job.time;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.state.ReducingState;
import org.apache.flink.api.common.state.ReducingStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.triggers.TriggerResult;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

/**
 * Fires and purges a period window in small batches: after {@code maxCount} readings of one
 * device, or {@code maxDelayMillis} of processing time after the first buffered one, whichever
 * comes first. A period window can last a month; this trigger keeps its state to a few readings
 * per device and the write latency to the delay.
 *
 * <p>It also fires when the watermark passes the window end, so nothing buffered is left when
 * the window operator clears the window at the end of its allowed lateness.
 */
@Internal
public final class SmallBatchTrigger extends Trigger<Object, TimeWindow> {
    private static final long serialVersionUID = 1L;

    private final long maxCount;
    private final long maxDelayMillis;

    private final ReducingStateDescriptor<Long> countDescriptor =
            new ReducingStateDescriptor<>("batch-count", Long::sum, LongSerializer.INSTANCE);
    private final ValueStateDescriptor<Long> deadlineDescriptor =
            new ValueStateDescriptor<>("batch-deadline", LongSerializer.INSTANCE);

    public SmallBatchTrigger(long maxCount, long maxDelayMillis) {
        this.maxCount = maxCount;
        this.maxDelayMillis = maxDelayMillis;
    }

    @Override
    public TriggerResult onElement(Object element, long timestamp, TimeWindow window, TriggerContext ctx)
            throws Exception {
        ReducingState<Long> count = ctx.getPartitionedState(countDescriptor);
        count.add(1L);
        if (count.get() >= maxCount) {
            return flush(ctx);
        }
        ValueState<Long> deadline = ctx.getPartitionedState(deadlineDescriptor);
        if (deadline.value() == null) {
            long at = ctx.getCurrentProcessingTime() + maxDelayMillis;
            deadline.update(at);
            ctx.registerProcessingTimeTimer(at);
            // Flush at the rollover too (registering the same timer again is a no-op).
            ctx.registerEventTimeTimer(window.maxTimestamp());
        }
        return TriggerResult.CONTINUE;
    }

    @Override
    public TriggerResult onProcessingTime(long time, TimeWindow window, TriggerContext ctx) throws Exception {
        return hasBuffered(ctx) ? flush(ctx) : TriggerResult.CONTINUE;
    }

    @Override
    public TriggerResult onEventTime(long time, TimeWindow window, TriggerContext ctx) throws Exception {
        return time == window.maxTimestamp() && hasBuffered(ctx) ? flush(ctx) : TriggerResult.CONTINUE;
    }

    @Override
    public void clear(TimeWindow window, TriggerContext ctx) throws Exception {
        resetBatch(ctx);
        ctx.deleteEventTimeTimer(window.maxTimestamp());
    }

    private boolean hasBuffered(TriggerContext ctx) throws Exception {
        return ctx.getPartitionedState(countDescriptor).get() != null;
    }

    private TriggerResult flush(TriggerContext ctx) throws Exception {
        resetBatch(ctx);
        return TriggerResult.FIRE_AND_PURGE;
    }

    private void resetBatch(TriggerContext ctx) throws Exception {
        ValueState<Long> deadline = ctx.getPartitionedState(deadlineDescriptor);
        if (deadline.value() != null) {
            ctx.deleteProcessingTimeTimer(deadline.value());
            deadline.clear();
        }
        ctx.getPartitionedState(countDescriptor).clear();
    }

    @Override
    public String toString() {
        return "SmallBatchTrigger(" + maxCount + " readings or " + maxDelayMillis + " ms)";
    }
}
