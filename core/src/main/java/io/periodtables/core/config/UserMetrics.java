package io.periodtables.core.config;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.metrics.MetricGroup;

/**
 * Where period-tables registers its own metrics: a subgroup named {@value #GROUP} of the
 * operator's group. Managed Service for Apache Flink publishes custom metrics to CloudWatch
 * only from that group (and no histograms), so every counter and gauge of ours lives there, under
 * one of the names below (docs/operations.md, "Metrics and alarms", says what each means).
 */
@PublicEvolving
public final class UserMetrics {

    public static final String GROUP = "kinesisanalytics";

    // the job's operators
    public static final String READINGS_IN = "readingsIn";
    public static final String READINGS_REJECTED = "readingsRejected";
    public static final String READINGS_LATE = "readingsLate";
    public static final String WINDOW_FIRES = "windowFires";
    public static final String WINDOW_FIRED_READINGS = "windowFiredReadings";
    public static final String ROLLUP_READINGS = "rollupReadings";
    public static final String ROLLUP_DUPLICATES = "rollupDuplicates";
    public static final String ROLLUP_UNCHECKED = "rollupUnchecked";
    public static final String ROLLUP_BUCKETS_WRITTEN = "rollupBucketsWritten";
    public static final String LATEST_PUTS = "latestPuts";
    public static final String LATEST_NOT_NEWER = "latestNotNewer";
    public static final String LATEST_REFUSED = "latestRefused";
    public static final String LATEST_PENDING_DEVICES = "latestPendingDevices";
    // the Kinesis source
    public static final String THROTTLED_READS = "throttledReads";
    public static final String MILLIS_BEHIND_LATEST = "millisBehindLatest";
    public static final String POSITIONS_TRIMMED = "positionsTrimmed";
    // the sink
    public static final String RECORDS_WRITTEN = "recordsWritten";
    public static final String BATCHES = "batches";
    public static final String UNPROCESSED_ITEMS_RETRIED = "unprocessedItemsRetried";
    public static final String THROTTLED_REQUESTS = "throttledRequests";
    public static final String FAILED_REQUESTS = "failedRequests";
    public static final String BISECTIONS = "bisections";
    public static final String REJECTED_ITEMS = "rejectedItems";
    public static final String MISSING_TABLE_FALLBACKS = "missingTableFallbacks";
    public static final String READINGS_REROUTED = "readingsRerouted";
    public static final String CLOSED_TABLE_RAISES = "closedTableRaises";
    public static final String ITEMS_NOT_REPLACED = "itemsNotReplaced";
    public static final String ON_DEMAND_CEILING_THROTTLES = "onDemandCeilingThrottles";
    public static final String DELAYED_ENTRIES = "delayedEntries";
    public static final String ACKNOWLEDGED_WATERMARK = "acknowledgedWatermark";
    public static final String LAST_SEND_LATENCY_MS = "lastSendLatencyMs";
    public static final String AVG_SEND_LATENCY_MS = "avgSendLatencyMs";
    // the table owner (rotation)
    public static final String TABLES_CREATED = "tablesCreated";
    public static final String TIER_CHANGES = "tierChanges";
    public static final String RETENTION_DELETIONS = "retentionDeletions";
    public static final String DELETION_PROTECTED_SKIPS = "deletionProtectedSkips";
    public static final String ROTATION_FAILURES = "failures";
    public static final String PREBUILD_LEAD_SECONDS = "prebuildLeadSeconds";
    public static final String MANAGED_TABLES = "managedTables";
    public static final String PROVISIONED_WRITE_CAPACITY = "provisionedWriteCapacity";
    public static final String OPEN_TABLE_PROVISIONED_WCU = "openTableProvisionedWcu";
    public static final String OPEN_TABLE_WRITE_UNITS = "openTableWriteUnits";
    public static final String TABLES_AWAITING_WRITERS = "tablesAwaitingWriters";
    public static final String LOWERING_STALLED = "loweringStalled";
    /** The subgroup of the sink's per-table counters: {@code table.<name>.recordsWritten}. */
    public static final String TABLE_GROUP = "table";

    private UserMetrics() {}

    /** The group for our metrics under an operator's (or sink writer's) metric group. */
    public static MetricGroup of(MetricGroup operatorGroup) {
        return operatorGroup.addGroup(GROUP);
    }
}
