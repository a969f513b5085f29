package io.periodtables.sink;

import io.periodtables.conf.ItemAttributes;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts, per table and per item key, the puts DynamoDB acknowledged to the sink's client: the
 * items of each successful {@code BatchWriteItem} that are not among its UnprocessedItems.
 * Installed like {@code DynamoDbFaults} (after it, so it sees the final request and response);
 * one static record per JVM, cleared by {@link #reset()}.
 */
public final class AcknowledgedWrites implements ExecutionInterceptor {

    private static final Map<String, AtomicLong> PER_TABLE = new ConcurrentHashMap<>();
    private static final Map<List<String>, AtomicInteger> PER_KEY = new ConcurrentHashMap<>();

    static void reset() {
        PER_TABLE.clear();
        PER_KEY.clear();
    }

    /** Puts acknowledged for {@code table} so far. */
    static long of(String table) {
        AtomicLong count = PER_TABLE.get(table);
        return count == null ? 0 : count.get();
    }

    /** Acknowledged puts per [table, pk, sk]. */
    static Map<List<String>, Integer> perKey() {
        Map<List<String>, Integer> counts = new java.util.HashMap<>();
        PER_KEY.forEach((key, count) -> counts.put(key, count.get()));
        return counts;
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        if (!(context.request() instanceof BatchWriteItemRequest request)
                || !(context.response() instanceof BatchWriteItemResponse response)) {
            return;
        }
        Set<List<String>> unprocessed = new HashSet<>();
        response.unprocessedItems().forEach((table, writes) -> writes.forEach(w -> unprocessed.add(key(table, w))));
        request.requestItems().forEach((table, writes) -> {
            for (WriteRequest write : writes) {
                List<String> key = key(table, write);
                if (!unprocessed.contains(key)) {
                    PER_TABLE.computeIfAbsent(table, t -> new AtomicLong()).incrementAndGet();
                    PER_KEY.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                }
            }
        });
    }

    private static List<String> key(String table, WriteRequest write) {
        Map<String, AttributeValue> item = write.putRequest().item();
        return List.of(table, item.get(ItemAttributes.PK).s(), item.get(ItemAttributes.SK).s());
    }
}
