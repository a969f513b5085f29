package io.periodtables.local;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A metric reporter for the local run: it keeps every metric the MiniCluster registers (same
 * JVM) so the runner's status line can read live values. Counters of the same name are summed
 * over subtasks; gauges are read by a fragment of their full identifier. Counters stay after
 * their task ends, so the end-of-run summary still reads the final counts; gauges go with
 * their task.
 */
@Internal
public final class LocalStatusReporter implements MetricReporter {

    private static final Map<String, Metric> METRICS = new ConcurrentHashMap<>();
    /** The sink's per-table counters: identifier to table name. */
    private static final Map<String, String> TABLE_OF = new ConcurrentHashMap<>();

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        String id = group.getMetricIdentifier(name);
        METRICS.put(id, metric);
        String table = group.getAllVariables().get("<table>");
        if (table != null) {
            TABLE_OF.put(id, table);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        if (!(metric instanceof Counter)) {
            METRICS.remove(group.getMetricIdentifier(name), metric);
        }
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

    /** Per table: the sum of the counters named {@code name} in the sink's per-table subgroups. */
    static Map<String, Long> sumPerTable(String name) {
        Map<String, Long> sums = new java.util.TreeMap<>();
        for (Map.Entry<String, String> e : TABLE_OF.entrySet()) {
            Metric metric = METRICS.get(e.getKey());
            if (e.getKey().endsWith("." + name) && metric instanceof Counter) {
                sums.merge(e.getValue(), ((Counter) metric).getCount(), Long::sum);
            }
        }
        return sums;
    }

    /** Smallest numeric value of the gauges whose identifier ends with {@code .name} and contains {@code scope}. */
    static Long min(String scope, String name) {
        return values(scope, name).stream().min(Long::compare).orElse(null);
    }

    /** Sum and count of the numeric gauges whose identifier ends with {@code .name} and contains {@code scope}. */
    static long[] sumAndCount(String scope, String name) {
        List<Long> values = values(scope, name);
        return new long[] {values.stream().mapToLong(Long::longValue).sum(), values.size()};
    }

    /**
     * Of the numeric gauges whose identifier ends with {@code .name} and contains {@code scope}: how many
     * are at least {@code least}, and how many there are.
     */
    static long[] countAtLeast(String scope, String name, long least) {
        List<Long> values = values(scope, name);
        return new long[] {values.stream().filter(v -> v >= least).count(), values.size()};
    }

    private static List<Long> values(String scope, String name) {
        List<Long> values = new ArrayList<>();
        for (Map.Entry<String, Metric> e : METRICS.entrySet()) {
            if (e.getKey().endsWith("." + name) && e.getKey().contains(scope) && e.getValue() instanceof Gauge) {
                Object v = ((Gauge<?>) e.getValue()).getValue();
                if (v instanceof Number) {
                    values.add(((Number) v).longValue());
                }
            }
        }
        return values;
    }

    /** Factory named in the local run's Flink configuration. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new LocalStatusReporter();
        }
    }
}
