package io.periodtables.sink;

import io.periodtables.core.owner.MissingTableHandler;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * Writes one batch of entries (at most 25, several tables, no duplicate keys) and works out what
 * became of each entry, asynchronously: the batch goes out as one {@code BatchWriteItem} call
 * ({@link BatchWriteItemCall}, which retries exactly the unprocessed items), a failed call is filed
 * by {@link FailedWrites} (retry, split, missing table, rejection or stop). Throttling and
 * unprocessed items are reported to the {@link MissingTableHandler} per table (it may raise a
 * table that was dialed down while readings for it were still unwritten).
 *
 * <p>With a growing attribute ({@link PeriodTableSink.Builder#replaceOnlyWhenNotSmaller}) each
 * entry that has it is a {@link ConditionalPut} instead, whose failure is filed as a batch of one.
 */
final class BatchWrite {

    private final BatchWriteItemCall call;
    private final FailedWrites failures;
    /** The conditional puts of entries with a growing attribute, or null: plain batches. */
    private final ConditionalPut puts;

    BatchWrite(
            DynamoDbAsyncClient client,
            MissingTableHandler missingTables,
            Reroutes reroutes,
            SinkMetrics metrics,
            Clock clock,
            String growing) {
        MissingTables owner = new MissingTables(missingTables, reroutes, metrics, clock);
        this.call = new BatchWriteItemCall(client, owner, metrics);
        this.failures = new FailedWrites(owner, reroutes, metrics, clock, this::write);
        this.puts = growing == null ? null : new ConditionalPut(client, growing, metrics);
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
        return call.send(entries)
                .handle((response, error) -> error == null
                        ? CompletableFuture.completedFuture(call.answered(entries, response))
                        : failures.file(entries, error))
                .thenCompose(Function.identity());
    }

    /** One entry as a {@link ConditionalPut}; a failure is filed like a batch of one. */
    private CompletableFuture<BatchOutcome> put(TableWriteEntry entry) {
        return puts.put(entry)
                .handle((written, error) -> error == null
                        ? CompletableFuture.completedFuture(BatchOutcome.DONE)
                        : failures.file(List.of(entry), error))
                .thenCompose(Function.identity());
    }
}
