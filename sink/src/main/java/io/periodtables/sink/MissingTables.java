package io.periodtables.sink;

import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.owner.MissingTableHandler;
import io.periodtables.model.Rejection;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink's questions to the table owner ({@link MissingTableHandler}) and what follows from its
 * answers. DynamoDB answers a write to a table that does not exist with a {@code
 * ResourceNotFoundException}, so the owner is asked about the table (one table: {@link FailedWrites}
 * has narrowed the batch down to it): when it created the table, the entries are written again;
 * when it did not because the table's period has closed, they go to the late table; otherwise to
 * the rejected table with the owner's reason. Throttling is reported to it per table too, so it can
 * raise a closed table that was dialed down while readings for it were still unwritten. Like
 * {@code BatchWrite}, it runs where DynamoDB's answers complete (the SDK's threads) and never
 * waits for the owner: its verdict is a future.
 */
final class MissingTables {
    private static final Logger LOG = LoggerFactory.getLogger(MissingTables.class);

    private final MissingTableHandler handler;
    private final Reroutes reroutes;
    private final String rejectedTable;
    private final SinkMetrics metrics;
    private final Clock clock;

    MissingTables(MissingTableHandler handler, Reroutes reroutes, SinkMetrics metrics, Clock clock) {
        this.handler = handler;
        this.reroutes = reroutes;
        this.rejectedTable = reroutes.rejectedTable();
        this.metrics = metrics;
        this.clock = clock;
    }

    /** Asks the owner about the missing table of {@code entries}, which are all for that one table. */
    CompletableFuture<BatchOutcome> ask(List<TableWriteEntry> entries, String description) {
        String table = entries.get(0).table();
        // Ask with what admits most: on-time readings before unknown ones before late ones, and
        // the oldest event time among those (the view when the first of them was made).
        MissingTableHandler.Arrival arrival = entries.stream()
                .map(e -> e.origin().arrival())
                .min(Comparator.naturalOrder())
                .orElse(MissingTableHandler.Arrival.UNKNOWN);
        long eventTime = entries.stream()
                .map(TableWriteEntry::origin)
                .filter(o -> o.arrival() == arrival)
                .mapToLong(TableWriteEntry.Origin::eventTime)
                .filter(t -> t != Long.MIN_VALUE)
                .min()
                .orElse(Long.MIN_VALUE);
        CompletableFuture<MissingTableHandler.Verdict> verdict;
        try {
            verdict = handler.ensureTable(table, arrival, eventTime);
        } catch (RuntimeException e) {
            verdict = CompletableFuture.failedFuture(e);
        }
        return verdict.handle((answer, error) -> {
            if (error != null) {
                LOG.warn(
                        "Table {} does not exist and the table owner could not decide about it: {}",
                        table,
                        error.toString());
                return BatchOutcome.retry(
                        entries,
                        description + "; table owner: "
                                + DynamoDbErrors.unwrap(error).getMessage());
            }
            return rerouted(table, entries, answer, description);
        });
    }

    private BatchOutcome rerouted(
            String table, List<TableWriteEntry> entries, MissingTableHandler.Verdict verdict, String description) {
        switch (verdict.kind()) {
            case CREATED:
                metrics.missingTableFallbacks.inc();
                LOG.info(
                        "Table {} did not exist; the table owner created it ({} entries written again)",
                        table,
                        entries.size());
                return BatchOutcome.retry(entries, description);
            case LATE:
                if (table.equals(rejectedTable)
                        || reroutes.toLate().apply(entries.get(0)).table().equals(table)) {
                    return BatchOutcome.retry(entries, description + "; the table owner sent the late table to itself");
                }
                metrics.readingsRerouted.inc(entries.size());
                LOG.info(
                        "Table {} does not exist and is not created: {}; its {} readings go to the late table",
                        table,
                        verdict.message(),
                        entries.size());
                return BatchOutcome.added(
                        entries.stream().map(reroutes.toLate()).toList());
            default:
                metrics.readingsRerouted.inc(entries.size());
                metrics.rejectedItems.inc(entries.size());
                LOG.info(
                        "Table {} does not exist and is not created: {}; its {} readings go to {} as {}",
                        table,
                        verdict.message(),
                        entries.size(),
                        rejectedTable,
                        verdict.reason());
                return BatchOutcome.added(entries.stream()
                        .map(entry -> reroutes.rejections()
                                .apply(Rejection.of(
                                        verdict.reason(),
                                        verdict.message() + " (table " + table + ")",
                                        ItemAttributes.toJson(entry.item()),
                                        clock.millis(),
                                        table)))
                        .toList());
        }
    }

    /**
     * Reports a table DynamoDB throttled to the owner, which may raise it (a closed table dialed
     * down while readings for it were still unwritten).
     */
    void throttled(String table) {
        try {
            handler.throttled(table).thenAccept(raised -> {
                if (raised) {
                    metrics.closedTableRaises.inc();
                }
            });
        } catch (RuntimeException e) {
            LOG.warn("The table owner failed on a throttled table {}: {}", table, e.toString());
        }
    }
}
