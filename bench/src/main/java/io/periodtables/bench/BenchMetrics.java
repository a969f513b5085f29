package io.periodtables.bench;

import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * Keeps the counters and gauges the benchmark's MiniCluster (same JVM) registers, so a benchmark
 * can sample live values ({@code recordsWritten}, per table, {@code missingTableFallbacks},
 * {@code avgSendLatencyMs}). A counter that is unregistered when its task ends keeps its last
 * value until {@link #reset()}; a gauge is forgotten.
 */
public final class BenchMetrics implements MetricReporter {

    private static final String TABLE_GROUP = ".table.";
    private static final Map<String, Counter> LIVE = new ConcurrentHashMap<>();
    private static final Map<String, Long> RETIRED = new ConcurrentHashMap<>();
    private static final Map<String, Gauge<?>> GAUGES = new ConcurrentHashMap<>();

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        if (metric instanceof Counter) {
            LIVE.put(group.getMetricIdentifier(name), (Counter) metric);
        } else if (metric instanceof Gauge) {
            GAUGES.put(group.getMetricIdentifier(name), (Gauge<?>) metric);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        String id = group.getMetricIdentifier(name);
        GAUGES.remove(id);
        Counter counter = LIVE.remove(id);
        if (counter != null) {
            RETIRED.merge(id, counter.getCount(), Long::sum);
        }
    }

    /** Counters seen (live and retired), for a sanity check of the reporter's wiring. */
    static int seen() {
        return LIVE.size() + RETIRED.size();
    }

    /** Forgets every value (between benchmark runs). */
    public static void reset() {
        LIVE.clear();
        RETIRED.clear();
        GAUGES.clear();
    }

    /** Mean over subtasks of the live numeric gauges named {@code name}; NaN when there is none. */
    public static double gaugeMean(String name) {
        return gaugeMean(name, "");
    }

    /** As {@link #gaugeMean(String)}, of the gauges whose scope contains {@code scope} (e.g. a task name). */
    public static double gaugeMean(String name, String scope) {
        double sum = 0;
        int n = 0;
        for (Map.Entry<String, Gauge<?>> e : GAUGES.entrySet()) {
            if (matches(e.getKey(), name)
                    && e.getKey().contains(scope)
                    && e.getValue().getValue() instanceof Number value) {
                sum += value.doubleValue();
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    /** Sum over subtasks of the counters named {@code name}, per-table subgroups excluded. */
    public static long sum(String name) {
        return sum(name, "");
    }

    /** As {@link #sum(String)}, of the counters whose scope contains {@code scope} (e.g. an operator's subtask). */
    public static long sum(String name, String scope) {
        long total = 0;
        for (Map.Entry<String, Counter> e : LIVE.entrySet()) {
            if (matches(e.getKey(), name) && e.getKey().contains(scope)) {
                total += e.getValue().getCount();
            }
        }
        for (Map.Entry<String, Long> e : RETIRED.entrySet()) {
            if (matches(e.getKey(), name) && e.getKey().contains(scope)) {
                total += e.getValue();
            }
        }
        return total;
    }

    private static boolean matches(String id, String name) {
        return id.endsWith("." + name) && !id.contains(TABLE_GROUP);
    }

    /** Records written per table (the sink's {@code table.<name>.recordsWritten}), live counters only. */
    public static Map<String, Long> writtenPerTable() {
        Map<String, Long> perTable = new TreeMap<>();
        for (Map.Entry<String, Counter> e : LIVE.entrySet()) {
            String id = e.getKey();
            int at = id.indexOf(TABLE_GROUP);
            if (at >= 0 && id.endsWith(".recordsWritten")) {
                String table = id.substring(at + TABLE_GROUP.length(), id.length() - ".recordsWritten".length());
                perTable.merge(table, e.getValue().getCount(), Long::sum);
            }
        }
        return perTable;
    }

    /** Factory named in the benchmark cluster's configuration. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new BenchMetrics();
        }
    }
}
