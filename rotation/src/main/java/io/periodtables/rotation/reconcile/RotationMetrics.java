package io.periodtables.rotation.reconcile;

import io.periodtables.core.config.UserMetrics;
import io.periodtables.rotation.lifecycle.ManagedTable;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * The rotation operator's metrics, in its operator's {@code kinesisanalytics} group (see
 * {@link io.periodtables.core.config.UserMetrics}, so MSF publishes them): {@code tablesCreated},
 * {@code tierChanges}, {@code retentionDeletions}, {@code deletionProtectedSkips},
 * {@code failures} (counters); {@code prebuildLeadSeconds} (event-time seconds between the last
 * table becoming ready and the start of its period; negative when it was late),
 * {@code managedTables} (tables of the prefix at the last pass) and
 * {@code provisionedWriteCapacity} (their provisioned WCU, summed), {@code openTableProvisionedWcu}
 * (WCU of the watermark's period table at the last pass; 0 on-demand, -1 unknown) and {@code
 * openTableWriteUnits} (its peak write units per second of event time so far, per {@code
 * generator.speedup} seconds for the synthetic fleet: what a later table is sized from), {@code
 * acknowledgedWatermark} (the sink writers' acknowledged watermark, epoch ms, as last read; {@code
 * Long.MIN_VALUE} before every writer reported), {@code tablesAwaitingWriters} (period tables
 * the watermark has closed that wait for the writers before they are lowered) and {@code
 * loweringStalled} (1 while they have waited longer than {@code rotation.lowering-stall-after}
 * without the writers' report moving, else 0) as gauges.
 */
public final class RotationMetrics {
    final Counter tablesCreated;
    final Counter tierChanges;
    final Counter retentionDeletions;
    final Counter deletionProtectedSkips;
    final Counter failures;
    private volatile long prebuildLeadSeconds;
    private volatile int managedTables;
    private volatile long provisionedWriteCapacity;
    private volatile String openTable;
    private volatile long openTableProvisionedWcu = -1;
    /** Each table's WCU as the last pass saw it (0 on-demand): one entry per table of the prefix. */
    private volatile Map<String, Long> observedWcu = Map.of();

    private volatile long openTableWriteUnits;
    private volatile long acknowledgedWatermark = Long.MIN_VALUE;
    private volatile int tablesAwaitingWriters;
    private volatile int loweringStalled;

    public RotationMetrics(MetricGroup group) {
        tablesCreated = group.counter(UserMetrics.TABLES_CREATED);
        tierChanges = group.counter(UserMetrics.TIER_CHANGES);
        retentionDeletions = group.counter(UserMetrics.RETENTION_DELETIONS);
        deletionProtectedSkips = group.counter(UserMetrics.DELETION_PROTECTED_SKIPS);
        failures = group.counter(UserMetrics.ROTATION_FAILURES);
        group.gauge(UserMetrics.PREBUILD_LEAD_SECONDS, (Gauge<Long>) () -> prebuildLeadSeconds);
        group.gauge(UserMetrics.MANAGED_TABLES, (Gauge<Integer>) () -> managedTables);
        group.gauge(UserMetrics.PROVISIONED_WRITE_CAPACITY, (Gauge<Long>) () -> provisionedWriteCapacity);
        group.gauge(UserMetrics.OPEN_TABLE_PROVISIONED_WCU, (Gauge<Long>) () -> openTableProvisionedWcu);
        group.gauge(UserMetrics.OPEN_TABLE_WRITE_UNITS, (Gauge<Long>) () -> openTableWriteUnits);
        group.gauge(UserMetrics.ACKNOWLEDGED_WATERMARK, (Gauge<Long>) () -> acknowledgedWatermark);
        group.gauge(UserMetrics.TABLES_AWAITING_WRITERS, (Gauge<Integer>) () -> tablesAwaitingWriters);
        group.gauge(UserMetrics.LOWERING_STALLED, (Gauge<Integer>) () -> loweringStalled);
    }

    /** The writers' acknowledged watermark and the closed tables that wait for it. */
    void writers(long acknowledged, int awaiting) {
        acknowledgedWatermark = acknowledged;
        tablesAwaitingWriters = awaiting;
    }

    int tablesAwaitingWriters() {
        return tablesAwaitingWriters;
    }

    void loweringStalled(boolean stalled) {
        loweringStalled = stalled ? 1 : 0;
    }

    int loweringStalled() {
        return loweringStalled;
    }

    /** The table of the watermark's period and its peak write units per second so far. */
    public void openTable(String table, long peakWriteUnits) {
        if (!table.equals(openTable)) {
            openTable = table;
            // As the last pass saw it (a start's and a restore's pass come before the first watermark), so
            // that the gauge is known from the watermark's first period on; -1 when no pass has seen it yet.
            openTableProvisionedWcu = observedWcu.getOrDefault(table, -1L);
        }
        openTableWriteUnits = peakWriteUnits;
    }

    void prebuildLead(long millis) {
        prebuildLeadSeconds = Math.floorDiv(millis, 1000L);
    }

    /** The tables a pass saw. */
    void observe(Collection<ManagedTable> tables) {
        managedTables = tables.size();
        provisionedWriteCapacity = tables.stream()
                .filter(t -> !t.capacity().onDemand())
                .mapToLong(t -> t.capacity().writeUnits())
                .sum();
        Map<String, Long> wcu = new HashMap<>();
        tables.forEach(t ->
                wcu.put(t.name(), t.capacity().onDemand() ? 0 : t.capacity().writeUnits()));
        observedWcu = wcu;
        String open = openTable;
        if (open != null && wcu.containsKey(open)) {
            openTableProvisionedWcu = wcu.get(open);
        }
    }

    long prebuildLeadSeconds() {
        return prebuildLeadSeconds;
    }

    int managedTables() {
        return managedTables;
    }

    long provisionedWriteCapacity() {
        return provisionedWriteCapacity;
    }
}
