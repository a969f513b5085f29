package io.periodtables.job.rotation;

import io.periodtables.model.Reading;
import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Thins the reading stream into the sparse side stream that feeds the rotation operator: at
 * most one event time per subtask per second of processing time. Watermarks pass through
 * every operator regardless of elements, so the rotation operator (parallelism 1) sees the
 * job's global watermark while almost no traffic reaches it.
 */
@Internal
final class RotationTicks extends ProcessFunction<Reading, Long> {
    private static final long serialVersionUID = 1L;

    static final long INTERVAL_MILLIS = 1000;

    private transient long nextTick;

    @Override
    public void processElement(Reading reading, Context ctx, Collector<Long> out) {
        long now = ctx.timerService().currentProcessingTime();
        if (now >= nextTick) {
            nextTick = now + INTERVAL_MILLIS;
            out.collect(reading.eventMillis());
        }
    }
}
