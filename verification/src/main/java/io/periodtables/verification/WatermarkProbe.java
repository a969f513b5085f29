package io.periodtables.verification;

import io.periodtables.core.period.EndOfInput;
import io.periodtables.job.PeriodTablesTopology;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * The job's event-time watermark as the period windows see it: Flink's
 * {@code currentInputWatermark} gauges of the windows operator, read in this JVM (the MiniCluster
 * registers its metrics with this reporter), the smallest over subtasks.
 */
public final class WatermarkProbe implements MetricReporter {
    private static final String GAUGE = "currentInputWatermark";
    private static final Map<String, Gauge<?>> GAUGES = new ConcurrentHashMap<>();

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        String id = group.getMetricIdentifier(name);
        if (name.equals(GAUGE) && id.contains(PeriodTablesTopology.WINDOWS_NAME) && metric instanceof Gauge<?> g) {
            GAUGES.put(id, g);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        GAUGES.remove(group.getMetricIdentifier(name), metric);
    }

    /** The windows' watermark, once every subtask has one. */
    static Optional<Instant> watermark() {
        Long min = null;
        for (Gauge<?> gauge : GAUGES.values()) {
            if (gauge.getValue() instanceof Number n) {
                min = min == null ? n.longValue() : Math.min(min, n.longValue());
            }
        }
        // before the first watermark Flink reports Long.MIN_VALUE; the end of input is no instant either
        return min == null || min == Long.MIN_VALUE || EndOfInput.is(min)
                ? Optional.empty()
                : Optional.of(Instant.ofEpochMilli(min));
    }

    /** Factory named in the run's Flink configuration. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new WatermarkProbe();
        }
    }
}
