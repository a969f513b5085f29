package io.periodtables.sink;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * A hand-written in-memory {@code BatchWriteItem} for unit tests of the batch logic: tables that
 * are missing, items that DynamoDB refuses (attribute {@code bad}), keys reported unprocessed
 * once, and scripted failures of the next calls.
 */
final class FakeDynamoDb implements DynamoDbAsyncClient {

    final Map<String, Map<List<String>, Map<String, AttributeValue>>> tables = new ConcurrentHashMap<>();
    final Set<String> missing = ConcurrentHashMap.newKeySet();
    final Set<List<String>> unprocessedOnce = ConcurrentHashMap.newKeySet();
    final List<Integer> requestSizes = new ArrayList<>();
    private final Deque<RuntimeException> nextFailures = new ArrayDeque<>();

    synchronized void failNext(RuntimeException error) {
        nextFailures.add(error);
    }

    static DynamoDbException error(String code, int status) {
        return (DynamoDbException) DynamoDbException.builder()
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage(code + " from fake")
                        .build())
                .statusCode(status)
                .message(code)
                .build();
    }

    Map<List<String>, Map<String, AttributeValue>> table(String name) {
        return tables.getOrDefault(name, Map.of());
    }

    @Override
    public synchronized CompletableFuture<BatchWriteItemResponse> batchWriteItem(BatchWriteItemRequest request) {
        requestSizes.add(
                request.requestItems().values().stream().mapToInt(List::size).sum());
        if (!nextFailures.isEmpty()) {
            return CompletableFuture.failedFuture(nextFailures.poll());
        }
        Set<List<String>> seen = new HashSet<>();
        for (Map.Entry<String, List<WriteRequest>> e : request.requestItems().entrySet()) {
            if (missing.contains(e.getKey())) {
                return CompletableFuture.failedFuture(error("ResourceNotFoundException", 400));
            }
            for (WriteRequest w : e.getValue()) {
                Map<String, AttributeValue> item = w.putRequest().item();
                if (item.containsKey("bad") || !seen.add(key(e.getKey(), item))) {
                    return CompletableFuture.failedFuture(error("ValidationException", 400));
                }
            }
        }
        Map<String, List<WriteRequest>> unprocessed = new HashMap<>();
        request.requestItems().forEach((table, writes) -> {
            for (WriteRequest w : writes) {
                Map<String, AttributeValue> item = w.putRequest().item();
                if (unprocessedOnce.remove(key(table, item))) {
                    unprocessed.computeIfAbsent(table, t -> new ArrayList<>()).add(w);
                } else {
                    tables.computeIfAbsent(table, t -> new ConcurrentHashMap<>())
                            .put(key(table, item), item);
                }
            }
        });
        return CompletableFuture.completedFuture(
                BatchWriteItemResponse.builder().unprocessedItems(unprocessed).build());
    }

    static List<String> key(String table, Map<String, AttributeValue> item) {
        return List.of(table, item.get("pk").s(), item.get("sk").s());
    }

    @Override
    public String serviceName() {
        return "dynamodb";
    }

    @Override
    public void close() {}
}
