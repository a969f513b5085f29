package io.periodtables.bench;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.Backoff;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.dynamodb.DynamoDbFailure;
import io.periodtables.core.item.ReadingItems;
import io.periodtables.model.Reading;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The backend's ceiling as a client sees it: one thread builds the same items as the sinks and
 * sends them in {@code BatchWriteItem}s of 25 to one table with {@code inFlight} requests
 * outstanding, through a client built as the sink's is; unprocessed items and throttled or transient
 * failures are sent again after a backoff, up to {@value #MAX_ATTEMPTS} attempts a batch. No Flink.
 *
 * <p>Each batch holds one permit from its first send until its last answer, whichever way that
 * answer goes: a failure ends the loop with DynamoDB's error once the batches in flight are
 * answered.
 */
public final class RawBatchLoop {

    private static final int BATCH = 25;
    private static final int MAX_ATTEMPTS = 20;
    private static final Backoff BACKOFF = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(5));

    private RawBatchLoop() {}

    public static void write(PeriodTablesConfig config, String table, Reading[] readings, int inFlight)
            throws Exception {
        ReadingItems items = new ReadingItems(config);
        Semaphore permits = new Semaphore(inFlight);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (DynamoDbAsyncClient client = DynamoDbClients.of(config).newAsyncClientForNonBlockingCallbacks(inFlight)) {
            for (int i = 0; i < readings.length; i += BATCH) {
                List<WriteRequest> batch = new ArrayList<>(BATCH);
                for (int j = i; j < Math.min(i + BATCH, readings.length); j++) {
                    batch.add(WriteRequest.builder()
                            .putRequest(PutRequest.builder()
                                    .item(items.item(readings[j]))
                                    .build())
                            .build());
                }
                permits.acquire();
                if (failure.get() != null) {
                    permits.release(); // this batch is not sent
                    break;
                }
                send(client, Map.of(table, batch), permits, failure, 1);
            }
            // every batch in flight is answered within its attempts' request timeouts and backoffs
            if (!permits.tryAcquire(inFlight, 10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("raw BatchWriteItem loop did not finish", failure.get());
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("raw BatchWriteItem loop failed", failure.get());
        }
    }

    /** Attempt {@code attempt} of a batch holding a permit; the permit is released with its last answer. */
    private static void send(
            DynamoDbAsyncClient client,
            Map<String, List<WriteRequest>> items,
            Semaphore permits,
            AtomicReference<Throwable> failure,
            int attempt) {
        CompletableFuture<Void> answered;
        try {
            answered = client.batchWriteItem(
                            BatchWriteItemRequest.builder().requestItems(items).build())
                    .thenAccept(response -> {
                        if (response.hasUnprocessedItems()
                                && !response.unprocessedItems().isEmpty()) {
                            again(client, response.unprocessedItems(), permits, failure, attempt, null);
                        } else {
                            permits.release();
                        }
                    });
        } catch (RuntimeException thrown) {
            answered = CompletableFuture.failedFuture(thrown);
        }
        answered.whenComplete((ok, error) -> {
            if (error != null) {
                again(client, items, permits, failure, attempt, error);
            }
        });
    }

    private static void again(
            DynamoDbAsyncClient client,
            Map<String, List<WriteRequest>> items,
            Semaphore permits,
            AtomicReference<Throwable> failure,
            int attempt,
            Throwable error) {
        boolean retryable = error == null || DynamoDbFailure.isRetryable(error);
        if (!retryable || attempt >= MAX_ATTEMPTS || failure.get() != null) {
            failure.compareAndSet(
                    null,
                    error != null
                            ? error
                            : new IllegalStateException(
                                    "items still unprocessed after " + attempt + " BatchWriteItem attempts"));
            permits.release();
            return;
        }
        CompletableFuture.runAsync(
                () -> send(client, items, permits, failure, attempt + 1),
                CompletableFuture.delayedExecutor(BACKOFF.delayMillis(attempt), TimeUnit.MILLISECONDS));
    }
}
