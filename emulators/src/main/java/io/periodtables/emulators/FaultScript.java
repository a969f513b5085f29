package io.periodtables.emulators;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;

/**
 * The one script per JVM that {@link DynamoDbFaults} follows, static and thread-safe because the
 * SDK makes its own interceptor instances: the fault rules and the CREATING holds, the decision
 * which fault an API call gets (a hold first, then the first rule that hits), how many calls of
 * each operation were seen and faults injected, and the log of answered calls.
 */
final class FaultScript {
    private static final int LOG_CAPACITY = 10_000;
    private static final Set<String> DATA_PLANE =
            Set.of("BatchWriteItem", "PutItem", "UpdateItem", "DeleteItem", "GetItem", "BatchGetItem", "Query", "Scan");
    private static final Set<String> TABLE_UPDATES = Set.of("UpdateTable", "UpdateTimeToLive", "DeleteTable");

    private static final Object LOCK = new Object();
    private static final List<FaultRule> RULES = new CopyOnWriteArrayList<>();
    private static final Map<String, Instant> CREATING = new ConcurrentHashMap<>();
    private static final Map<String, AtomicLong> SEEN = new ConcurrentHashMap<>();
    private static final Map<String, AtomicLong> INJECTED = new ConcurrentHashMap<>();
    private static final Deque<SeenRequest> REQUESTS = new ArrayDeque<>();

    /** The fault chosen for one API call. */
    record Decision(FaultKind kind, FaultRule rule, PartialBatch partial, String message) {}

    private FaultScript() {}

    static void reset() {
        synchronized (LOCK) {
            RULES.clear();
            CREATING.clear();
            SEEN.clear();
            INJECTED.clear();
            REQUESTS.clear();
        }
    }

    static FaultRule add(FaultRule rule) {
        RULES.add(rule);
        return rule;
    }

    static void holdCreating(String table, Instant until) {
        CREATING.put(table, until);
    }

    static void release(String table) {
        CREATING.remove(table);
    }

    static long count(String operation) {
        AtomicLong seen = SEEN.get(operation);
        return seen == null ? 0 : seen.get();
    }

    static long injected(String operation, FaultKind kind) {
        AtomicLong injected = INJECTED.get(operation + "/" + kind);
        return injected == null ? 0 : injected.get();
    }

    static long injected(FaultKind kind) {
        return INJECTED.entrySet().stream()
                .filter(e -> e.getKey().endsWith("/" + kind))
                .mapToLong(e -> e.getValue().get())
                .sum();
    }

    static List<SeenRequest> requests() {
        synchronized (LOCK) {
            return List.copyOf(REQUESTS);
        }
    }

    static void log(SeenRequest seen, boolean throttled) {
        synchronized (LOCK) {
            if (REQUESTS.size() == LOG_CAPACITY) {
                REQUESTS.removeFirst();
            }
            REQUESTS.addLast(throttled ? seen.throttledByDynamoDb() : seen);
        }
    }

    static Decision decide(String operation, List<String> tables, SdkRequest request) {
        synchronized (LOCK) {
            SEEN.computeIfAbsent(operation, o -> new AtomicLong()).incrementAndGet();
            Decision decision = heldCreating(operation, tables);
            for (FaultRule rule : RULES) {
                if (rule.hits(operation, tables) && decision == null) {
                    rule.injectedOnce();
                    PartialBatch partial = rule.kind() == FaultKind.UNPROCESSED_ITEMS
                            ? PartialBatch.split((BatchWriteItemRequest) request, rule.fraction())
                            : null;
                    decision = new Decision(rule.kind(), rule, partial, null);
                }
            }
            Optional.ofNullable(decision)
                    .map(Decision::kind)
                    .ifPresent(kind -> INJECTED.computeIfAbsent(operation + "/" + kind, k -> new AtomicLong())
                            .incrementAndGet());
            return decision;
        }
    }

    /** A hold on a table in CREATING beats the script: it is the table's state, not a random fault. */
    private static Decision heldCreating(String operation, List<String> tables) {
        Instant now = Instant.now();
        for (String table : tables) {
            Instant until = CREATING.get(table);
            if (until == null || !now.isBefore(until)) {
                continue;
            }
            if (DATA_PLANE.contains(operation)) {
                return new Decision(FaultKind.RESOURCE_NOT_FOUND, null, null, null);
            }
            if (TABLE_UPDATES.contains(operation)) {
                return new Decision(
                        FaultKind.RESOURCE_IN_USE,
                        null,
                        null,
                        "Attempt to change a resource which is still in use: Table is being created: " + table);
            }
            if (operation.equals("DescribeTable") || operation.equals("CreateTable")) {
                return new Decision(FaultKind.TABLE_CREATING, null, null, null);
            }
        }
        return null;
    }
}
