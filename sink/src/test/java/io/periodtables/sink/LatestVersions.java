package io.periodtables.sink;

import io.periodtables.core.dynamodb.LatestTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * What the latest writer holds, seen from outside: the test's source numbers every reading
 * (payload field {@code i}) and marks when it hands it to the writer ({@link #emitted}), and
 * this interceptor marks when a put of it starts, on one logical clock (both happen on the
 * writer's task thread, so the order is exact). A version the writer put was held from its
 * emission to its last put (a retry holds it again), so the most versions held at once is a
 * lower bound of the writer's memory in readings; versions it coalesced away are not counted.
 * Installed like {@code DynamoDbFaults}; one static record per JVM, cleared by {@link #reset()}.
 */
public final class LatestVersions implements ExecutionInterceptor {
    private static final AtomicLong CLOCK = new AtomicLong();
    private static final Map<Long, Long> EMITTED = new ConcurrentHashMap<>();
    private static final Map<Long, Long> LAST_PUT = new ConcurrentHashMap<>();
    private static final List<long[]> PUTS = java.util.Collections.synchronizedList(new ArrayList<>());

    static void reset() {
        EMITTED.clear();
        LAST_PUT.clear();
        PUTS.clear();
    }

    /** Marks reading {@code i} handed to the writer. */
    static void emitted(long i) {
        EMITTED.put(i, CLOCK.incrementAndGet());
    }

    /** Readings handed to the writer so far. */
    static long emittedCount() {
        return EMITTED.size();
    }

    /** The most versions that had been handed to the writer and were still to be put, at any moment. */
    static int mostHeldAtOnce() {
        List<long[]> changes = new ArrayList<>();
        LAST_PUT.forEach((i, put) -> {
            changes.add(new long[] {EMITTED.get(i), 1});
            changes.add(new long[] {put, -1});
        });
        changes.sort((a, b) -> Long.compare(a[0], b[0]));
        int held = 0;
        int most = 0;
        for (long[] change : changes) {
            held += (int) change[1];
            most = Math.max(most, held);
        }
        return most;
    }

    /**
     * Puts that started after the writer had been given a newer reading of the same device:
     * each costs a write unit for a version the writer knew to be stale. Reading {@code i}'s
     * next version is {@code i + devices} (the source goes round the fleet in order).
     */
    static long stalePuts(int devices) {
        synchronized (PUTS) {
            return PUTS.stream()
                    .filter(put -> {
                        Long next = EMITTED.get(put[0] + devices);
                        return next != null && next < put[1];
                    })
                    .count();
        }
    }

    /** Puts started so far, retries included. */
    static long puts() {
        return PUTS.size();
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        if (!(context.request() instanceof PutItemRequest put)) {
            return;
        }
        AttributeValue reading = put.item().get(LatestTable.READING);
        long i = Long.parseLong(reading.m().get("i").n());
        long at = CLOCK.incrementAndGet();
        LAST_PUT.put(i, at);
        PUTS.add(new long[] {i, at});
    }
}
