package io.periodtables.job;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A metric reporter for the local run: it keeps every metric the MiniCluster registers (same
 * JVM) so the runner's status line can read live values. Counters of the same name are summed
 * over subtasks; gauges are read by a fragment of their full identifier.
 */
@Internal
public final class LocalStatusReporter implements MetricReporter {

    private static final Map<String, Metric> METRICS = new ConcurrentHashMap<>();

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        METRICS.put(group.getMetricIdentifier(name), metric);
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        METRICS.remove(group.getMetricIdentifier(name));
    }

    /** Sum of all counters named {@code name} (not those in per-table subgroups). */
    static long sum(String name) {
        long total = 0;
        for (Map.Entry<String, Metric> e : METRICS.entrySet()) {
            if (e.getKey().endsWith("." + name) && !e.getKey().contains(".table.") && e.getValue() instanceof Counter) {
                total += ((Counter) e.getValue()).getCount();
            }
        }
        return total;
    }

    /** Smallest numeric value of the gauges whose identifier ends with {@code .name} and contains {@code scope}. */
    static Long min(String scope, String name) {
        Long min = null;
        for (Map.Entry<String, Metric> e : METRICS.entrySet()) {
            if (e.getKey().endsWith("." + name) && e.getKey().contains(scope) && e.getValue() instanceof Gauge) {
                Object v = ((Gauge<?>) e.getValue()).getValue();
                if (v instanceof Number && (min == null || ((Number) v).longValue() < min)) {
                    min = ((Number) v).longValue();
                }
            }
        }
        return min;
    }

    /** Factory named in the local run's Flink configuration. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new LocalStatusReporter();
        }
    }
}
