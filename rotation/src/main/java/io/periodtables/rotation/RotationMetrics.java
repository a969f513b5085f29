package io.periodtables.rotation;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

import java.util.function.IntSupplier;

/**
 * The rotation operator's metrics, in its operator's {@code kinesisanalytics} group (see
 * {@link io.periodtables.conf.UserMetrics}, so MSF publishes them): {@code tablesCreated},
 * {@code tierChanges}, {@code retentionDeletions}, {@code deletionProtectedSkips},
 * {@code failures} (counters), {@code prebuildLeadSeconds} (event-time seconds between the
 * last table becoming ready and the start of its period; negative when it was late) and
 * {@code trackedTables} (gauges).
 */
final class RotationMetrics {
    final Counter tablesCreated;
    final Counter tierChanges;
    final Counter retentionDeletions;
    final Counter deletionProtectedSkips;
    final Counter failures;
    private volatile long prebuildLeadSeconds;

    RotationMetrics(MetricGroup group, IntSupplier trackedTables) {
        tablesCreated = group.counter("tablesCreated");
        tierChanges = group.counter("tierChanges");
        retentionDeletions = group.counter("retentionDeletions");
        deletionProtectedSkips = group.counter("deletionProtectedSkips");
        failures = group.counter("failures");
        group.gauge("prebuildLeadSeconds", (Gauge<Long>) () -> prebuildLeadSeconds);
        group.gauge("trackedTables", (Gauge<Integer>) trackedTables::getAsInt);
    }

    void prebuildLead(long millis) {
        prebuildLeadSeconds = Math.floorDiv(millis, 1000L);
    }

    long prebuildLeadSeconds() {
        return prebuildLeadSeconds;
    }
}
