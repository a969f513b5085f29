package io.periodtables.sink;

import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.owner.MissingTableHandler;
import io.periodtables.model.RejectReason;
import io.periodtables.model.Rejection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Writes one batch of entries (at most 25, several tables, no duplicate keys) with
 * {@code BatchWriteItem} and works out what became of each entry, asynchronously:
 *
 * <ul>
 *   <li>unprocessed items of every table in the response are retried, exactly those;
 *   <li>throttling, 5xx and I/O errors retry the whole batch (a throttled batch of several
 *       tables is first written again table by table, so only the throttling table backs off);
 *   <li>a {@code ValidationException} splits the batch in halves until the invalid item is
 *       alone; it is replaced by a {@code dynamodb-validation} rejection, the rest is written;
 *   <li>a {@code ResourceNotFoundException} splits the batch by table, then asks the
 *       {@link MissingTableHandler} about the missing one ({@link MissingTables}): its entries are
 *       written again once the table exists, or go to the late table, or to the rejected table
 *       with the owner's reason;
 *   <li>throttling and unprocessed items are reported to the handler per table (it may raise a
 *       table that was dialed down while readings for it were still unwritten);
 *   <li>refused credentials are fatal.
 * </ul>
 *
 * <p>With a growing attribute ({@link PeriodTableSink.Builder#replaceOnlyWhenNotSmaller}) each
 * entry that has it is a {@link ConditionalPut} instead, whose failures are filed here as a batch
 * of one.
 */
final class BatchWrite {
    private static final Logger LOG = LoggerFactory.getLogger(BatchWrite.class);

    private final DynamoDbAsyncClient client;
    private final MissingTables missingTables;
    private final Reroutes reroutes;
    private final String rejectedTable;
    private final SinkMetrics metrics;
    private final Clock clock;
    /** The conditional puts of entries with a growing attribute, or null: plain batches. */
    private final ConditionalPut puts;
    /** Tables whose on-demand ceiling has been said (SDK threads: concurrent). */
    private final Set<String> ceilingSaid = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Where entries go that cannot be written to their own table.
     *
     * @param toLate the same reading for this month's late table
     * @param rejections the entry of a rejection for the rejected table
     */
    record Reroutes(
            UnaryOperator<TableWriteEntry> toLate,
            Function<Rejection, TableWriteEntry> rejections,
            String rejectedTable) {}

    BatchWrite(
            DynamoDbAsyncClient client,
            MissingTableHandler missingTables,
            Reroutes reroutes,
            SinkMetrics metrics,
            Clock clock,
            String growing) {
        this.client = client;
        this.puts = growing == null ? null : new ConditionalPut(client, growing, metrics);
        this.missingTables = new MissingTables(missingTables, reroutes, metrics, clock);
        this.reroutes = reroutes;
        this.rejectedTable = reroutes.rejectedTable();
        this.metrics = metrics;
        this.clock = clock;
    }

    /** Writes {@code entries}, which must not contain two entries for one table and key. */
    CompletableFuture<BatchOutcome> write(List<TableWriteEntry> entries) {
        if (puts != null) {
            CompletableFuture<BatchOutcome> all = CompletableFuture.completedFuture(BatchOutcome.DONE);
            List<TableWriteEntry> plain = new ArrayList<>();
            for (TableWriteEntry entry : entries) {
                if (puts.applies(entry)) {
                    all = all.thenCombine(put(entry), BatchOutcome::and);
                } else {
                    // a rejection the sink rerouted (a rollup of a period without tables): no bucket to compare
                    plain.add(entry);
                }
            }
            return plain.isEmpty() ? all : all.thenCombine(batch(plain), BatchOutcome::and);
        }
        return batch(entries);
    }

    /** Writes {@code entries} in one {@code BatchWriteItem}. */
    private CompletableFuture<BatchOutcome> batch(List<TableWriteEntry> entries) {
        Map<String, List<WriteRequest>> requestItems = new HashMap<>();
        for (TableWriteEntry entry : entries) {
            requestItems.computeIfAbsent(entry.table(), t -> new ArrayList<>()).add(entry.request());
        }
        BatchWriteItemRequest request =
                BatchWriteItemRequest.builder().requestItems(requestItems).build();
        long start = System.nanoTime();
        CompletableFuture<BatchWriteItemResponse> call;
        try {
            call = client.batchWriteItem(request);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        return call.handle((response, error) -> {
                    metrics.sent(System.nanoTime() - start);
                    return error == null
                            ? CompletableFuture.completedFuture(answered(entries, response))
                            : failed(entries, error);
                })
                .thenCompose(Function.identity());
    }

    /** One entry as a {@link ConditionalPut}; a failure is filed like a batch of one. */
    private CompletableFuture<BatchOutcome> put(TableWriteEntry entry) {
        return puts.put(entry)
                .handle((written, error) -> error == null
                        ? CompletableFuture.completedFuture(BatchOutcome.DONE)
                        : failed(List.of(entry), error))
                .thenCompose(Function.identity());
    }

    private BatchOutcome answered(List<TableWriteEntry> entries, BatchWriteItemResponse response) {
        if (!response.hasUnprocessedItems() || response.unprocessedItems().isEmpty()) {
            metrics.written(entries);
            return BatchOutcome.DONE;
        }
        Set<TableWriteEntry.EntryKey> unprocessed = new HashSet<>();
        response.unprocessedItems().forEach((table, requests) -> {
            for (WriteRequest request : requests) {
                Map<String, AttributeValue> item = request.putRequest().item();
                unprocessed.add(new TableWriteEntry.EntryKey(
                        table,
                        item.get(ItemAttributes.PK).s(),
                        item.get(ItemAttributes.SK).s()));
            }
        });
        List<TableWriteEntry> written = new ArrayList<>(entries.size());
        List<TableWriteEntry> again = new ArrayList<>(unprocessed.size());
        for (TableWriteEntry entry : entries) {
            (unprocessed.contains(entry.key()) ? again : written).add(entry);
        }
        metrics.written(written);
        metrics.unprocessedItemsRetried.inc(again.size());
        response.unprocessedItems().keySet().forEach(missingTables::throttled);
        return BatchOutcome.retry(again, "UnprocessedItems: DynamoDB did not process the item (capacity)");
    }

    private CompletableFuture<BatchOutcome> failed(List<TableWriteEntry> entries, Throwable error) {
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
        CompletableFuture<BatchOutcome> left = write(entries.subList(0, half));
        CompletableFuture<BatchOutcome> right = write(entries.subList(half, entries.size()));
        return left.thenCombine(right, BatchOutcome::and);
    }

    private BatchOutcome poison(TableWriteEntry entry, String description) {
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

    /** Writes each table's entries of {@code entries} in a request of its own, concurrently. */
    private CompletableFuture<BatchOutcome> byTable(List<TableWriteEntry> entries) {
        Map<String, List<TableWriteEntry>> byTable = new LinkedHashMap<>();
        for (TableWriteEntry entry : entries) {
            byTable.computeIfAbsent(entry.table(), t -> new ArrayList<>()).add(entry);
        }
        CompletableFuture<BatchOutcome> all = CompletableFuture.completedFuture(BatchOutcome.DONE);
        for (List<TableWriteEntry> group : byTable.values()) {
            all = all.thenCombine(write(group), BatchOutcome::and);
        }
        return all;
    }

    /** A call DynamoDB throttled at a table's on-demand ceiling: counted, and said once per table. */
    private void atOnDemandCeiling(Throwable error) {
        DynamoDbErrors.onDemandCeilingTables(error).forEach(table -> {
            metrics.onDemandCeilingThrottles.inc();
            if (ceilingSaid.add(table)) {
                LOG.warn(
                        "Table {} throttles the sink at its on-demand ceiling (OnDemandThroughput, tables.on-demand.max):"
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
