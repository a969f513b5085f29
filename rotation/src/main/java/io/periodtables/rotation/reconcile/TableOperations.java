package io.periodtables.rotation.reconcile;

import io.periodtables.rotation.controlplane.ControlPlaneErrors;
import io.periodtables.rotation.lifecycle.ManagedTable;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Reconciler}'s bookkeeping of its work per table: at most one operation per table at
 * a time, results brought back to the operator's thread, a failed table left alone until the
 * next tick, and a table whose capacity decrease DynamoDB's quota blocks left alone until the
 * quota allows it. Used from the operator's thread only.
 */
public final class TableOperations {
    private static final Logger LOG = LoggerFactory.getLogger(TableOperations.class);

    private final Reconciler.Host host;
    private final LongSupplier wallClock;
    private final Map<String, String> running = new HashMap<>();
    /** The running operations that only prepare a table for writes to come ({@link #startForWritesToCome}). */
    private final Set<String> forWritesToCome = new HashSet<>();

    private final Map<String, Instant> notBefore = new HashMap<>();
    private final Set<String> failedSinceTick = new HashSet<>();

    TableOperations(Reconciler.Host host) {
        this.host = host;
        this.wallClock = host::wallClockMillis;
    }

    /**
     * Starts {@code operation} on {@code table}; {@code then} runs on the operator's thread with its result or error.
     */
    <T> void start(String table, String what, CompletableFuture<T> operation, Result<T> then) {
        running.put(table, what);
        operation.whenComplete((result, error) -> host.post(() -> {
            running.remove(table);
            forWritesToCome.remove(table);
            then.accept(result, error == null ? null : ControlPlaneErrors.unwrap(error));
        }));
    }

    /**
     * As {@link #start}, for an operation that only prepares {@code table} for writes still to
     * come (a prewarm): the end of input does not wait for it ({@link #runningForThisInput}).
     */
    <T> void startForWritesToCome(String table, String what, CompletableFuture<T> operation, Result<T> then) {
        forWritesToCome.add(table);
        start(table, what, operation, then);
    }

    /** True while an operation runs on {@code table}, or it failed since the last tick, or it waits for its quota. */
    boolean busy(String table) {
        Instant until = notBefore.get(table);
        if (until != null && !until.isAfter(Instant.ofEpochMilli(wallClock.getAsLong()))) {
            notBefore.remove(table);
            until = null;
        }
        return running.containsKey(table) || failedSinceTick.contains(table) || until != null;
    }

    int running() {
        return running.size();
    }

    /** The running operations but those for writes to come: what this input's writes or its tables' tiers need. */
    int runningForThisInput() {
        return running.size() - forWritesToCome.size();
    }

    void failed(String table) {
        failedSinceTick.add(table);
    }

    /** A new tick: failed tables may be tried again. */
    void tick() {
        failedSinceTick.clear();
    }

    /** Leaves {@code table} at {@code table.capacity()} until {@code until}: DynamoDB's decrease quota. */
    void waitForQuota(ManagedTable table, Instant until) {
        if (!until.equals(notBefore.put(table.name(), until))) {
            LOG.info(
                    "Table {} stays at {} until {}: DynamoDB's capacity-decrease quota for it is used up ({}"
                            + " decreases today)",
                    table.name(),
                    table.capacity(),
                    until,
                    table.decreasesToday());
        }
    }

    /** What to do with an operation's result or error. */
    @FunctionalInterface
    interface Result<T> {
        void accept(T result, Throwable error);
    }
}
