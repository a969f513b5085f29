package io.periodtables.sink;

import io.periodtables.core.item.ItemAttributes;
import io.periodtables.model.RejectReason;
import io.periodtables.model.Rejection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a failed write call means for its entries, by the error's {@link DynamoDbErrors.Kind}:
 *
 * <ul>
 *   <li>throttling, 5xx and I/O errors retry the whole call (a throttled call of several tables is
 *       first written again table by table, so only the throttling table backs off);
 *   <li>a {@code ValidationException} splits the entries in halves until the invalid item is alone;
 *       it is replaced by a {@code dynamodb-validation} rejection, the rest is written;
 *   <li>a {@code ResourceNotFoundException} splits the entries by table, then asks the table owner
 *       about the missing one ({@link MissingTables});
 *   <li>a table with another key schema, and refused credentials, are fatal.
 * </ul>
 *
 * <p>A split writes its parts again through the writer it was given, concurrently. Runs where
 * DynamoDB's answers complete (the SDK's threads).
 */
final class FailedWrites {
    private static final Logger LOG = LoggerFactory.getLogger(FailedWrites.class);

    private final MissingTables missingTables;
    private final Reroutes reroutes;
    private final SinkMetrics metrics;
    private final Clock clock;
    /** Writes a part of a split batch: the same path as the whole batch took. */
    private final Function<List<TableWriteEntry>, CompletableFuture<BatchOutcome>> writeAgain;
    /** Tables whose on-demand ceiling has been said (SDK threads: concurrent). */
    private final Set<String> ceilingSaid = ConcurrentHashMap.newKeySet();

    FailedWrites(
            MissingTables missingTables,
            Reroutes reroutes,
            SinkMetrics metrics,
            Clock clock,
            Function<List<TableWriteEntry>, CompletableFuture<BatchOutcome>> writeAgain) {
        this.missingTables = missingTables;
        this.reroutes = reroutes;
        this.metrics = metrics;
        this.clock = clock;
        this.writeAgain = writeAgain;
    }

    /** What became of {@code entries}, whose write call failed with {@code error}. */
    CompletableFuture<BatchOutcome> file(List<TableWriteEntry> entries, Throwable error) {
        DynamoDbErrors.Kind kind = DynamoDbErrors.classify(error);
        String description = DynamoDbErrors.describe(error);
        switch (kind) {
            case THROTTLED:
                metrics.throttledRequests.inc();
                atOnDemandCeiling(error);
                if (tablesOf(entries).size() > 1) {
                    // DynamoDB does not say which table throttled: ask table by table, so only it backs off.
                    return byTable(entries);
                }
                missingTables.throttled(entries.get(0).table());
                return CompletableFuture.completedFuture(BatchOutcome.retry(entries, description));
            case TRANSIENT:
                metrics.failedRequests.inc();
                LOG.debug("BatchWriteItem of {} entries failed, will retry: {}", entries.size(), description);
                return CompletableFuture.completedFuture(BatchOutcome.retry(entries, description));
            case VALIDATION:
                return entries.size() == 1
                        ? CompletableFuture.completedFuture(poison(entries.get(0), description))
                        : bisect(entries);
            case TABLE_MISSING:
                return tableMissing(entries, description);
            case WRONG_KEY_SCHEMA:
                // Narrow it down to one table (a batch spans several), then stop: never reject valid items.
                return tablesOf(entries).size() > 1
                        ? bisect(entries)
                        : CompletableFuture.completedFuture(BatchOutcome.fatal(new PeriodTableSinkException(
                                "Table " + tablesOf(entries).iterator().next()
                                        + " exists but its key schema is not pk (S, HASH) and"
                                        + " sk (S, RANGE), so it is not a period-tables table: " + description
                                        + ". Use another tables.prefix or remove that table.",
                                DynamoDbErrors.unwrap(error))));
            case ACCESS_DENIED:
            default:
                return CompletableFuture.completedFuture(BatchOutcome.fatal(new PeriodTableSinkException(
                        "DynamoDB refused the sink's credentials or permissions for tables " + tablesOf(entries)
                                + ": " + description + ". Check the AWS credentials of the job (on Managed Service"
                                + " for Apache Flink: the application's IAM role needs dynamodb:BatchWriteItem on"
                                + " these tables) and aws.region / dynamodb.endpoint.",
                        DynamoDbErrors.unwrap(error))));
        }
    }

    /** Halves sent concurrently; recursion ends at single items, so at most log2(25) rounds. */
    private CompletableFuture<BatchOutcome> bisect(List<TableWriteEntry> entries) {
        metrics.bisections.inc();
        int half = entries.size() / 2;
        CompletableFuture<BatchOutcome> left = writeAgain.apply(entries.subList(0, half));
        CompletableFuture<BatchOutcome> right = writeAgain.apply(entries.subList(half, entries.size()));
        return left.thenCombine(right, BatchOutcome::and);
    }

    /** The one item DynamoDB refused as invalid, as a rejection for the rejected table. */
    private BatchOutcome poison(TableWriteEntry entry, String description) {
        String rejectedTable = reroutes.rejectedTable();
        if (entry.table().equals(rejectedTable)) {
            return BatchOutcome.fatal(new PeriodTableSinkException("the rejected table " + rejectedTable
                    + " refused item pk=" + entry.pk() + ", sk=" + entry.sk() + ": " + description));
        }
        LOG.warn(
                "DynamoDB refused item pk={} sk={} of table {}; it goes to {}: {}",
                entry.pk(),
                entry.sk(),
                entry.table(),
                rejectedTable,
                description);
        metrics.rejectedItems.inc();
        Rejection rejection = Rejection.of(
                RejectReason.DYNAMODB_VALIDATION,
                description + " (table " + entry.table() + ")",
                ItemAttributes.toJson(entry.item()),
                clock.millis(),
                entry.table());
        return BatchOutcome.added(reroutes.rejections().apply(rejection));
    }

    private CompletableFuture<BatchOutcome> tableMissing(List<TableWriteEntry> entries, String description) {
        if (tablesOf(entries).size() > 1) {
            // DynamoDB does not say which table is missing: ask table by table.
            return byTable(entries);
        }
        return missingTables.ask(entries, description);
    }

    /** Writes each table's entries of {@code entries} in a call of its own, concurrently. */
    private CompletableFuture<BatchOutcome> byTable(List<TableWriteEntry> entries) {
        Map<String, List<TableWriteEntry>> byTable = new LinkedHashMap<>();
        for (TableWriteEntry entry : entries) {
            byTable.computeIfAbsent(entry.table(), t -> new ArrayList<>()).add(entry);
        }
        CompletableFuture<BatchOutcome> all = CompletableFuture.completedFuture(BatchOutcome.DONE);
        for (List<TableWriteEntry> group : byTable.values()) {
            all = all.thenCombine(writeAgain.apply(group), BatchOutcome::and);
        }
        return all;
    }

    /** A call DynamoDB throttled at a table's on-demand ceiling: counted, and said once per table. */
    private void atOnDemandCeiling(Throwable error) {
        DynamoDbErrors.onDemandCeilingTables(error).forEach(table -> {
            metrics.onDemandCeilingThrottles.inc();
            if (ceilingSaid.add(table)) {
                LOG.warn(
                        "Table {} throttles the sink at its on-demand ceiling (OnDemandThroughput,"
                                + " tables.on-demand.max):"
                                + " its writes wait and are retried; raise the ceiling if this load is expected",
                        table);
            }
        });
    }

    private static Set<String> tablesOf(List<TableWriteEntry> entries) {
        Set<String> tables = new TreeSet<>();
        entries.forEach(e -> tables.add(e.table()));
        return tables;
    }
}
