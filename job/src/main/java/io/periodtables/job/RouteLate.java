package io.periodtables.job;

import io.periodtables.conf.UserMetrics;
import io.periodtables.conf.ConfigKeys;
import io.periodtables.sink.Reading;
import io.periodtables.sink.SinkRecord;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.metrics.Counter;

/**
 * Routes a reading that arrived after its period's grace, per {@code late.policy}: to the late
 * table of the month it is written in, or back to its own period table.
 */
final class RouteLate extends RichMapFunction<Reading, SinkRecord> {
    private static final long serialVersionUID = 1L;

    private final ConfigKeys.LatePolicy policy;
    private transient Counter late;

    RouteLate(ConfigKeys.LatePolicy policy) {
        this.policy = policy;
    }

    @Override
    public void open(OpenContext openContext) {
        late = UserMetrics.of(getRuntimeContext().getMetricGroup()).counter("readingsLate");
    }

    @Override
    public SinkRecord map(Reading reading) {
        late.inc();
        return policy == ConfigKeys.LatePolicy.PERIOD_TABLE ? SinkRecord.period(reading) : SinkRecord.late(reading);
    }
}
