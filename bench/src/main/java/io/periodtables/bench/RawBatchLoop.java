package io.periodtables.bench;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.item.ReadingItems;
import io.periodtables.model.Reading;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * outstanding, through a client built as the sink's is; unprocessed items and failed requests are
 * sent again. No Flink.
 */
final class RawBatchLoop {

    private static final int BATCH = 25;

    private RawBatchLoop() {}

    static void write(PeriodTablesConfig config, String table, Reading[] readings, int inFlight) throws Exception {
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
                    break;
                }
                send(client, Map.of(table, batch), permits, failure, 0);
            }
            if (!permits.tryAcquire(inFlight, 10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("raw BatchWriteItem loop did not finish");
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("raw BatchWriteItem loop failed", failure.get());
        }
    }

    private static void send(
            DynamoDbAsyncClient client,
            Map<String, List<WriteRequest>> items,
            Semaphore permits,
            AtomicReference<Throwable> failure,
            int attempt) {
        client.batchWriteItem(
                        BatchWriteItemRequest.builder().requestItems(items).build())
                .whenComplete((response, error) -> {
                    if (error != null) {
                        if (attempt >= 20) {
                            failure.compareAndSet(null, error);
                            permits.release();
                        } else {
                            send(client, items, permits, failure, attempt + 1);
                        }
                    } else if (response.hasUnprocessedItems()
                            && !response.unprocessedItems().isEmpty()) {
                        send(client, response.unprocessedItems(), permits, failure, attempt + 1);
                    } else {
                        permits.release();
                    }
                });
    }
}
