package io.periodtables.emulators;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Splits a BatchWriteItem into the part really sent and the part held back, and adds the held
 * back part to the response's UnprocessedItems, as DynamoDB does when a partition is throttled.
 */
record PartialBatch(BatchWriteItemRequest sent, Map<String, List<WriteRequest>> heldBack) {

    /** Holds back the last {@code ceil(fraction × items)} write requests, at least one. */
    static PartialBatch split(BatchWriteItemRequest request, double fraction) {
        int total =
                request.requestItems().values().stream().mapToInt(List::size).sum();
        int keep = total - Math.max(1, (int) Math.ceil(fraction * total));
        Map<String, List<WriteRequest>> sent = new LinkedHashMap<>();
        Map<String, List<WriteRequest>> heldBack = new LinkedHashMap<>();
        int seen = 0;
        for (Map.Entry<String, List<WriteRequest>> table :
                request.requestItems().entrySet()) {
            for (WriteRequest write : table.getValue()) {
                Map<String, List<WriteRequest>> target = seen++ < keep ? sent : heldBack;
                target.computeIfAbsent(table.getKey(), t -> new ArrayList<>()).add(write);
            }
        }
        return new PartialBatch(request.toBuilder().requestItems(sent).build(), heldBack);
    }

    /** Holds back the write requests {@code heldBack} selects (per table and request). */
    static PartialBatch select(
            BatchWriteItemRequest request, java.util.function.BiPredicate<String, WriteRequest> heldBack) {
        Map<String, List<WriteRequest>> sent = new LinkedHashMap<>();
        Map<String, List<WriteRequest>> held = new LinkedHashMap<>();
        for (Map.Entry<String, List<WriteRequest>> table :
                request.requestItems().entrySet()) {
            for (WriteRequest write : table.getValue()) {
                Map<String, List<WriteRequest>> target = heldBack.test(table.getKey(), write) ? held : sent;
                target.computeIfAbsent(table.getKey(), t -> new ArrayList<>()).add(write);
            }
        }
        return new PartialBatch(request.toBuilder().requestItems(sent).build(), held);
    }

    /** True when nothing is held back. */
    boolean nothingHeldBack() {
        return heldBack.isEmpty();
    }

    /** True when nothing is left to send (the request must not reach DynamoDB: it would be invalid). */
    boolean nothingSent() {
        return sent.requestItems().isEmpty();
    }

    BatchWriteItemResponse addHeldBackTo(BatchWriteItemResponse response) {
        Map<String, List<WriteRequest>> unprocessed = new LinkedHashMap<>();
        response.unprocessedItems().forEach((table, writes) -> unprocessed.put(table, new ArrayList<>(writes)));
        heldBack.forEach((table, writes) ->
                unprocessed.computeIfAbsent(table, t -> new ArrayList<>()).addAll(writes));
        return response.toBuilder().unprocessedItems(unprocessed).build();
    }
}
