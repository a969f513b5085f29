package io.periodtables.sink;

import io.periodtables.core.item.ItemAttributes;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Counts, per table and per item key, the puts DynamoDB acknowledged to the sink's client: the
 * items of each successful {@code BatchWriteItem} that are not among its UnprocessedItems.
 * Installed like {@code DynamoDbFaults} (after it, so it sees the final request and response);
 * one static record per JVM, cleared by {@link #reset()}.
 */
public final class AcknowledgedWrites implements ExecutionInterceptor {

    private static final ExecutionAttribute<Long> STARTED = new ExecutionAttribute<>("AcknowledgedWritesStarted");
    private static final Map<String, AtomicLong> PER_TABLE = new ConcurrentHashMap<>();
    private static final Map<List<String>, AtomicInteger> PER_KEY = new ConcurrentHashMap<>();
    private static final Queue<Acknowledged> REQUESTS = new ConcurrentLinkedQueue<>();

    /** Puts to one table acknowledged in one response, and when its request started ({@link System#nanoTime()}). */
    private record Acknowledged(String table, long startedNanos, int puts) {}

    static void reset() {
        PER_TABLE.clear();
        PER_KEY.clear();
        REQUESTS.clear();
    }

    /** Puts acknowledged for {@code table} in responses to requests that started at or after {@code nanos}. */
    static long ofRequestsStartedSince(String table, long nanos) {
        return REQUESTS.stream()
                .filter(r -> r.table().equals(table) && r.startedNanos() >= nanos)
                .mapToLong(Acknowledged::puts)
                .sum();
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
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        attributes.putAttribute(STARTED, System.nanoTime());
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
            int puts = 0;
            for (WriteRequest write : writes) {
                List<String> key = key(table, write);
                if (!unprocessed.contains(key)) {
                    puts++;
                    PER_TABLE.computeIfAbsent(table, t -> new AtomicLong()).incrementAndGet();
                    PER_KEY.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                }
            }
            REQUESTS.add(new Acknowledged(table, attributes.getAttribute(STARTED), puts));
        });
    }

    private static List<String> key(String table, WriteRequest write) {
        Map<String, AttributeValue> item = write.putRequest().item();
        return List.of(
                table,
                item.get(ItemAttributes.PK).s(),
                item.get(ItemAttributes.SK).s());
    }
}
