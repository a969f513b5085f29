package io.periodtables.job.time;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Routes a reading that arrived after its period's grace, per {@code late.policy}: to the late
 * table of the UTC month of the event-time watermark that made it late, or back to its own
 * period table. Most late readings were judged in the source against their shard's watermark,
 * which they carry; the rest come from the window operator's late side output and carry its
 * watermark at the moment it judged them (the side output precedes the next watermark). Either
 * way the late table depends on the data alone: a replay, whenever it runs, writes the same one.
 * Each path routes in the task that judged the reading (the source's, the windows'), so a late
 * reading is not sent between tasks before it reaches the sink.
 */
public abstract class RouteLate<IN> extends ProcessFunction<IN, SinkRecord> {
    private static final long serialVersionUID = 1L;

    private final ConfigKeys.LatePolicy policy;
    private transient Counter late;

    RouteLate(ConfigKeys.LatePolicy policy) {
        this.policy = policy;
    }

    @Override
    public void open(OpenContext openContext) {
        late = UserMetrics.of(getRuntimeContext().getMetricGroup()).counter(UserMetrics.READINGS_LATE);
    }

    final void route(SinkRecord lateRecord, Collector<SinkRecord> out) {
        late.inc();
        out.collect(
                policy == ConfigKeys.LatePolicy.PERIOD_TABLE ? SinkRecord.period(lateRecord.reading()) : lateRecord);
    }

    /** A reading the source judged late against its shard's watermark, which it carries. */
    public static final class InShards extends RouteLate<SinkRecord> {
        private static final long serialVersionUID = 1L;

        public InShards(ConfigKeys.LatePolicy policy) {
            super(policy);
        }

        @Override
        public void processElement(SinkRecord record, Context ctx, Collector<SinkRecord> out) {
            route(record, out);
        }
    }

    /** A reading of the window operator's late side output, with the watermark that made it late. */
    public static final class FromWindows extends RouteLate<Reading> {
        private static final long serialVersionUID = 1L;

        public FromWindows(ConfigKeys.LatePolicy policy) {
            super(policy);
        }

        @Override
        public void processElement(Reading reading, Context ctx, Collector<SinkRecord> out) {
            route(SinkRecord.late(reading, ctx.timerService().currentWatermark()), out);
        }
    }
}
