package io.periodtables.sink;

import io.periodtables.core.item.ItemAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * One {@code BatchWriteItem} call: the request built from a batch's entries (grouped by table, so
 * one call writes to several tables) and DynamoDB's answer read back: the entries it wrote are
 * counted, exactly those it left unprocessed are retried. A failed call is the caller's to file
 * ({@link FailedWrites}).
 */
final class BatchWriteItemCall {

    private final DynamoDbAsyncClient client;
    private final MissingTables missingTables;
    private final SinkMetrics metrics;

    BatchWriteItemCall(DynamoDbAsyncClient client, MissingTables missingTables, SinkMetrics metrics) {
        this.client = client;
        this.missingTables = missingTables;
        this.metrics = metrics;
    }

    /**
     * Sends {@code entries} (at most 25, no two for one table and key) in one request; completes
     * with DynamoDB's answer, or exceptionally with its error (also one the client throws).
     */
    CompletableFuture<BatchWriteItemResponse> send(List<TableWriteEntry> entries) {
        Map<String, List<WriteRequest>> requestItems = new HashMap<>();
        for (TableWriteEntry entry : entries) {
            requestItems.computeIfAbsent(entry.table(), t -> new ArrayList<>()).add(entry.request());
        }
        BatchWriteItemRequest request =
                BatchWriteItemRequest.builder().requestItems(requestItems).build();
        return metrics.timed(() -> client.batchWriteItem(request));
    }

    /**
     * What became of {@code entries} that DynamoDB answered with {@code response}: done, or the
     * unprocessed ones to retry (their tables reported to the owner as throttled).
     */
    BatchOutcome answered(List<TableWriteEntry> entries, BatchWriteItemResponse response) {
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
}
