package io.periodtables.rotation;

import io.periodtables.conf.CapacityTier;
import io.periodtables.conf.Period;
import io.periodtables.conf.TableNaming;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The rotation's decisions, driven by the watermark and by a wall-clock guard: ensure the
 * tables {@link RotationPlanner} says are needed, move tracked tables to their tier, run
 * retention once per rollover. Every call to DynamoDB is a {@link TableManager} future; its
 * result comes back through {@code mailbox} (the operator's mailbox), so this class is only
 * ever used from one thread and never waits.
 *
 * <p>One operation per table at a time. A failed one is counted, reported, and tried again
 * from the next guard tick at the earliest.
 */
final class RotationController {
    private static final Logger LOG = LoggerFactory.getLogger(RotationController.class);
    /** Skipped periods adopted per watermark jump; older ones are left to retention. */
    static final int MAX_ADOPTED = 48;

    private final TableManager manager;
    private final RotationPlanner planner;
    private final TableNaming naming;
    private final RotationState state;
    private final Executor mailbox;
    private final Consumer<RotationEvent> events;
    private final RotationMetrics metrics;
    private final LongSupplier wallClock;
    private final Duration failureBackoff;
    private final Map<String, String> inFlight = new HashMap<>();
    private final Map<String, Long> notBefore = new HashMap<>();
    private boolean retentionRunning;
    private boolean tiersWaitForCheckpoints;
    private long flushedWatermark = Long.MIN_VALUE;
    private long lastWatermarkAdvance;

    RotationController(TableManager manager, RotationPlanner planner, TableNaming naming, RotationState state,
            Executor mailbox, Consumer<RotationEvent> events, RotationMetrics metrics, LongSupplier wallClock,
            Duration failureBackoff) {
        this.manager = manager;
        this.planner = planner;
        this.naming = naming;
        this.state = state;
        this.mailbox = mailbox;
        this.events = events;
        this.metrics = metrics;
        this.wallClock = wallClock;
        this.failureBackoff = failureBackoff;
        this.lastWatermarkAdvance = wallClock.getAsLong();
    }

    RotationState state() {
        return state;
    }

    /** Operations started and not yet reported back. */
    int pending() {
        return inFlight.size() + (retentionRunning ? 1 : 0);
    }

    /**
     * With checkpointing on, a table is dialed down only by a watermark that a completed
     * checkpoint has covered: watermarks are in-band, so a checkpoint whose barrier followed the
     * watermark also followed every reading the windows fired for that period, and the sink
     * flushed them all before that checkpoint completed. Without this, a sink with a backlog
     * would still be writing to a table already at 1 WCU.
     *
     * @param restoredWatermark the watermark of the state restored from (all of it was flushed),
     *     or {@code Long.MIN_VALUE}
     */
    void tiersWaitForCheckpoints(long restoredWatermark) {
        tiersWaitForCheckpoints = true;
        flushedWatermark = restoredWatermark;
    }

    /** A checkpoint completed that covered everything before {@code watermark}. */
    void onFlushed(long watermark) {
        if (watermark > flushedWatermark) {
            flushedWatermark = watermark;
            evaluateAll();
        }
    }

    /** The watermark that tier decisions go by. */
    private long tierWatermark() {
        return tiersWaitForCheckpoints ? Math.min(flushedWatermark, state.watermark) : state.watermark;
    }

    /** After a restore: reads every tracked table back with DescribeTable before acting on it. */
    void reconcile() {
        for (TrackedTable table : new ArrayList<>(state.tables())) {
            start(table.name, "reconcile", manager.describe(table.name), this::onReconciled);
        }
    }

    /** A reading's timestamp: before the first watermark, its period's table is needed now. */
    void onElement(long timestamp) {
        if (!state.hasWatermark() && state.tables().isEmpty()) {
            try {
                track(planner.periodsNeededAt(Instant.ofEpochMilli(timestamp)).get(0));
            } catch (IllegalArgumentException noTableForThisTime) {
                return;
            }
            evaluateAll();
        }
    }

    void onWatermark(long watermark) {
        if (watermark <= state.watermark) {
            return;
        }
        Instant now = Instant.ofEpochMilli(watermark);
        List<Period> needed;
        try {
            needed = planner.periodsNeededAt(now);
        } catch (IllegalArgumentException noTableForThisTime) {
            return; // the initial or the final (end of input) watermark
        }
        if (state.hasWatermark()) {
            adoptSkipped(watermark(), now);
        }
        state.watermark = watermark;
        lastWatermarkAdvance = wallClock.getAsLong();
        needed.forEach(this::track);
        evaluateAll();
        String current = needed.get(0).label();
        if (!current.equals(state.retentionPeriodLabel) && !retentionRunning) {
            state.retentionPeriodLabel = current;
            retentionRunning = true;
            manager.applyRetention(now).whenComplete((report, error) -> post(() -> onRetention(report, error)));
        }
    }

    /**
     * The guard: prebuild by the wall clock too, and retry what failed. The wall clock only
     * decides while the stream is live (the watermark within {@code rotation.lead} of it) or
     * stalled (the watermark has not moved for {@code rotation.lead}); during a backfill, when
     * the watermark advances far behind the wall clock, it would only provision tables at full
     * capacity hours or days before anything is written to them.
     */
    void onWallClock() {
        long now = wallClock.getAsLong();
        long lead = planner.lead().toMillis();
        boolean live = !state.hasWatermark() || now - state.watermark <= lead;
        boolean stalled = now - lastWatermarkAdvance >= lead;
        if (!live && !stalled) {
            evaluateAll();
            return;
        }
        try {
            for (Period period : planner.periodsNeededAt(Instant.ofEpochMilli(now))) {
                // Event time may be ahead (a test, a clock problem): never rebuild what it closed.
                if (!state.hasWatermark() || planner.tierAt(period, watermark()) == CapacityTier.CURRENT) {
                    track(period);
                }
            }
        } catch (IllegalArgumentException noTableForThisTime) {
            LOG.warn("The wall clock reads {}, outside the years table names support", wallClock.getAsLong());
        }
        evaluateAll();
    }

    private Instant watermark() {
        return Instant.ofEpochMilli(state.watermark);
    }

    /**
     * A watermark that jumps over whole periods (a backlog racing forward) never made them
     * current, yet the sink may have created their tables through its fallback. Track them as
     * possibly existing, so they are dialed down like the rest; a tier change on a table that
     * does not exist reports it missing and the table is dropped.
     */
    private void adoptSkipped(Instant from, Instant to) {
        for (Period period : planner.periodsBetween(from, to, MAX_ADOPTED)) {
            String name = naming.periodTable(period);
            if (state.get(name) == null) {
                state.put(new TrackedTable(name, period, true, CapacityTier.CURRENT));
            }
        }
    }

    private void track(Period period) {
        String name = naming.periodTable(period);
        if (state.get(name) == null) {
            state.put(new TrackedTable(name, period, false, CapacityTier.CURRENT));
        }
    }

    private void evaluateAll() {
        for (TrackedTable table : new ArrayList<>(state.tables())) {
            evaluate(table);
        }
    }

    private void evaluate(TrackedTable table) {
        if (inFlight.containsKey(table.name) || notBefore.getOrDefault(table.name, Long.MIN_VALUE) > wallClock.getAsLong()) {
            return;
        }
        CapacityTier live = state.hasWatermark() ? planner.tierAt(table.period, watermark()) : CapacityTier.CURRENT;
        if (!table.ensured) {
            if (live == CapacityTier.OLDER) {
                state.remove(table.name); // its time has passed without it; nothing to prebuild any more
                return;
            }
            start(table.name, "ensure", manager.ensure(table.period), this::onEnsured);
            return;
        }
        long tierMark = tierWatermark();
        CapacityTier due = state.hasWatermark() && tierMark != Long.MIN_VALUE
                ? planner.tierAt(table.period, Instant.ofEpochMilli(tierMark))
                : CapacityTier.CURRENT;
        if (due.compareTo(table.tier) > 0) {
            start(table.name, "tier " + due, manager.setTier(table.name, due), this::onTierSet);
        }
    }

    private <T> void start(String table, String what, CompletableFuture<T> operation, TriConsumer<String, T, Throwable> then) {
        inFlight.put(table, what);
        operation.whenComplete((result, error) -> post(() -> {
            inFlight.remove(table);
            then.accept(table, result, error == null ? null : ControlPlaneErrors.unwrap(error));
        }));
    }

    private void onEnsured(String name, EnsuredTable ensured, Throwable error) {
        TrackedTable table = state.get(name);
        if (error != null) {
            failed(name, "ensure", error);
            if (error instanceof TableSchemaMismatchException) {
                throw (TableSchemaMismatchException) error; // fails the job: nothing can be written there
            }
            return;
        }
        if (ensured.created()) {
            metrics.tablesCreated.inc();
        }
        if (table == null) {
            return;
        }
        table.ensured = true;
        table.tier = manager.tierOf(ensured.info()).orElse(CapacityTier.CURRENT);
        long lead = state.hasWatermark() ? table.period.startMillis() - state.watermark : 0;
        metrics.prebuildLead(lead);
        LOG.info("Table {} is ready ({}), {} s before its period starts in event time", name,
                ensured.created() ? "created" : "existed", Math.floorDiv(lead, 1000L));
        events.accept(new RotationEvent(RotationEvent.Kind.TABLE_READY, name, table.tier, state.watermark, lead,
                ensured.created() ? "created" : "existed"));
        settle(table);
    }

    private void onTierSet(String name, TierChange change, Throwable error) {
        if (error != null) {
            failed(name, "tier change", error);
            return;
        }
        TrackedTable table = state.get(name);
        if (change.outcome() == TierChange.Outcome.CHANGED) {
            metrics.tierChanges.inc();
        }
        if (table == null) {
            return;
        }
        if (change.outcome() == TierChange.Outcome.TABLE_MISSING) {
            LOG.debug("Table {} does not exist; no longer tracking it", name);
            state.remove(name);
            return;
        }
        table.tier = change.tier();
        events.accept(new RotationEvent(RotationEvent.Kind.TIER_SET, name, change.tier(), state.watermark, 0,
                change.outcome() == TierChange.Outcome.CHANGED ? "changed" : "unchanged"));
        settle(table);
    }

    private void onReconciled(String name, Optional<TableInfo> info, Throwable error) {
        TrackedTable table = state.get(name);
        if (table == null) {
            return;
        }
        if (error != null) {
            LOG.warn("Could not read table {} back after the restore ({}); the next change reads it again",
                    name, ControlPlaneErrors.describe(error));
        } else if (info.isEmpty() || !"ACTIVE".equals(info.get().status())) {
            table.ensured = false;
        } else {
            table.ensured = true;
            CapacityTier actual = manager.tierOf(info.get()).orElse(table.tier);
            if (actual != table.tier) {
                LOG.info("Table {} is at tier {} although the restored state said {}", name, actual, table.tier);
            }
            table.tier = actual;
        }
        settle(table);
    }

    /** Stops tracking a table at its last tier; else looks whether the watermark wants more of it. */
    private void settle(TrackedTable table) {
        if (table.ensured && table.tier == CapacityTier.OLDER) {
            state.remove(table.name);
        } else {
            evaluate(table);
        }
    }

    private void onRetention(RetentionReport report, Throwable error) {
        retentionRunning = false;
        if (error != null) {
            failed(null, "retention", ControlPlaneErrors.unwrap(error));
            return;
        }
        for (String table : report.deleted()) {
            state.remove(table);
            metrics.retentionDeletions.inc();
            events.accept(new RotationEvent(RotationEvent.Kind.TABLE_DELETED, table, null, state.watermark, 0, "retention"));
        }
        for (String table : report.deletionProtected()) {
            metrics.deletionProtectedSkips.inc();
            events.accept(new RotationEvent(RotationEvent.Kind.DELETION_PROTECTED, table, null, state.watermark, 0,
                    "past retention, deletion protection on"));
        }
    }

    private void failed(String table, String what, Throwable error) {
        metrics.failures.inc();
        if (table != null) {
            notBefore.put(table, wallClock.getAsLong() + failureBackoff.toMillis());
        }
        LOG.warn("Rotation {} of {} failed: {}", what, table == null ? "tables" : table, ControlPlaneErrors.describe(error));
        events.accept(new RotationEvent(RotationEvent.Kind.FAILED, table, null, state.watermark, 0,
                what + ": " + ControlPlaneErrors.describe(error)));
    }

    private void post(Runnable action) {
        try {
            mailbox.execute(action);
        } catch (RuntimeException closed) {
            LOG.debug("Rotation result arrived after the operator closed; dropped", closed);
        }
    }

    /** A consumer of a table name, a result and an error. */
    @FunctionalInterface
    private interface TriConsumer<A, B, C> {
        void accept(A a, B b, C c);
    }
}
