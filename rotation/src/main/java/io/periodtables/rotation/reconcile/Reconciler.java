package io.periodtables.rotation.reconcile;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.ThroughputQuotaRefused;
import io.periodtables.core.period.Period;
import io.periodtables.rotation.controlplane.ControlPlaneErrors;
import io.periodtables.rotation.controlplane.RetryLoop;
import io.periodtables.rotation.controlplane.TableManager;
import io.periodtables.rotation.lifecycle.Lifecycle;
import io.periodtables.rotation.lifecycle.LoweringBound;
import io.periodtables.rotation.lifecycle.OpenCapacity;
import io.periodtables.rotation.lifecycle.RetentionGate;
import io.periodtables.rotation.lifecycle.TablePlan;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of the tables' life cycle, working like a controller: from the watermark, the
 * wall clock and the configuration ({@link Lifecycle}) it knows which tables should exist and at
 * which tier; a <em>pass</em> reads the actual tables of the prefix (ListTables, DescribeTable)
 * and applies the difference (create, raise, lower within DynamoDB's decrease quota, enable TTL,
 * delete past retention, with a {@link RetentionGate} only archived periods). Passes run at start, on every tick, and
 * whenever the watermark moves a
 * period boundary; a table anyone created converges to its tier. What it remembers of DynamoDB
 * is only a cache.
 *
 * <p>Tables are created only for open periods: the next one {@code rotation.lead} before it
 * starts, the watermark's own when an advance crosses its start (it jumped past that moment), and
 * one that readings have arrived for. Used from the operator's thread only; results
 * of DynamoDB calls come back through {@link Host#post}. One operation per table at a time; a
 * failed one is tried again from the next tick.
 */
public final class Reconciler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);
    /** Reading times remembered before the first watermark (their periods may get tables once it arrives). */
    private static final int EARLY_READINGS = 16;

    /** What the reconciler needs from the operator it runs in. */
    public interface Host {
        /** Runs {@code action} on the operator's thread. */
        void post(Runnable action);

        void emit(RotationEvent event);

        long wallClockMillis();
    }

    /** The sink writers' acknowledged watermark, read now; empty while a writer has not reported. */
    public interface Writers {
        CompletableFuture<OptionalLong> acknowledged();
    }

    private final Lifecycle lifecycle;
    private final RotationState state;
    private final RotationMetrics metrics;
    private final Host host;
    private final TablePlan plan;
    private final ActualTables actual;
    private final TableOperations operations;
    private final RetentionSweep retention;
    private final TableActions actions;
    private final LoweringBound lowering;
    private final WritersWatch watch;
    private final List<Long> earlyReadings = new ArrayList<>();
    /** Tables asked for before the first pass read the prefix: created after it, if still missing. */
    private final Map<Period, String> beforeFirstRead = new LinkedHashMap<>();

    private boolean read;
    private boolean passRunning;
    private boolean passAgain;

    /**
     * @param gate what retention waits for before it deletes a table; null: nothing
     * @param writers the sink writers a closed table waits for before it is lowered; null: none
     *     (tables are lowered by the watermark)
     */
    public Reconciler(
            TableManager tables,
            PeriodTablesConfig config,
            RotationState state,
            RotationMetrics metrics,
            Host host,
            RetentionGate gate,
            Writers writers) {
        this.lifecycle = Lifecycle.of(config);
        this.state = state;
        this.metrics = metrics;
        this.host = host;
        OpenCapacity open = new OpenCapacity(config, state.load, () -> state.watermark);
        this.plan = new TablePlan(config, lifecycle, open);
        this.actual = new ActualTables(tables, config.naming(), host);
        this.operations = new TableOperations(host);
        this.lowering = new LoweringBound(lifecycle, plan, writers != null);

        this.retention = new RetentionSweep(
                tables, operations, actual, metrics, host, () -> state.watermark, this::failed, gate);
        this.actions = new TableActions(
                tables,
                config,
                plan,
                open,
                actual,
                operations,
                retention,
                metrics,
                host,
                () -> state.watermark,
                this::view,
                this::failed);
        this.watch = new WritersWatch(
                writers,
                lowering,
                lifecycle,
                config.naming(),
                actual,
                state,
                metrics,
                host,
                this::failed,
                config.get(ConfigKeys.ROTATION_LOWERING_STALL_AFTER));
    }

    /**
     * Reads the writers' acknowledged watermark when a closed table waits for it; a pass follows
     * when it closed another period. At most one read at a time.
     */
    public void pollWriters() {
        watch.poll(this::passIfPhaseMoved);
    }

    /** True while a closed table waits for the writers' acknowledged watermark. */
    public boolean awaitingWriters() {
        return watch.awaiting();
    }

    /** Operations started and not yet reported back (a pass and a read of the writers table count as one each). */
    public int pending() {
        return operations.running() + retention.running() + (passRunning ? 1 : 0) + (watch.polling() ? 1 : 0);
    }

    /**
     * What the end of input waits for: the {@link #pending} operations but prewarms. A prewarm
     * serves writes to come, and none come after the end of input; DynamoDB warms the table on its
     * own once it has answered the UpdateTable (its warm throughput takes minutes to become
     * ACTIVE), and the next run prewarms again what is still cold.
     */
    public int pendingForThisInput() {
        return operations.runningForThisInput()
                + retention.running()
                + (passRunning ? 1 : 0)
                + (watch.polling() ? 1 : 0);
    }

    /** The start (or restore): read every table of the prefix and reconcile it. */
    public void start() {
        pass(true);
    }

    /** The periodic tick: failed operations may be tried again, and a pass runs. */
    public void tick() {
        operations.tick();
        pass(false);
    }

    /** A reading's event time: an open period with readings gets its table. */
    public void onReading(long eventMillis) {
        if (!state.hasWatermark()) {
            if (earlyReadings.size() == EARLY_READINGS) {
                earlyReadings.remove(0);
            }
            earlyReadings.add(eventMillis);
            return;
        }
        createIfOpen(eventMillis, "readings for its period arrived while it is open");
    }

    public void onWatermark(long watermark) {
        if (watermark <= state.watermark || !plan.namesTablesAt(watermark)) {
            return; // not an advance, or the initial/final watermark (no table can be named for it)
        }
        boolean crossedRollover = state.hasWatermark()
                && !lifecycle
                        .calendar()
                        .periodOf(state.watermark)
                        .equals(lifecycle.calendar().periodOf(watermark));
        state.watermark = watermark;
        Instant now = Instant.ofEpochMilli(watermark);
        if (crossedRollover) {
            // A watermark that jumped past the prebuild moment (a backfill) still finds its period's table.
            create(lifecycle.calendar().periodOf(now), "the watermark entered its period");
        }
        lifecycle.prebuild(now).ifPresent(next -> create(next, "the watermark is within rotation.lead of its start"));
        for (long reading : earlyReadings) {
            createIfOpen(reading, "readings for its period arrived while it is open");
        }
        earlyReadings.clear();
        passIfPhaseMoved();
    }

    private void passIfPhaseMoved() {
        if (state.hasWatermark() && lowering.phaseMoved(state.watermark)) {
            pass(false);
        }
    }

    private void createIfOpen(long eventMillis, String why) {
        if (!plan.namesTablesAt(eventMillis)) {
            return;
        }
        Period period = lifecycle.calendar().periodOf(eventMillis);
        if (lifecycle.admission(period, watermark()) == Lifecycle.Admission.OPEN) {
            create(period, why);
        }
    }

    private void create(Period period, String why) {
        if (!read) {
            beforeFirstRead.putIfAbsent(period, why);
            return;
        }
        actions.create(period, why);
    }

    private void pass(boolean full) {
        if (passRunning) {
            passAgain = true;
            return;
        }
        passRunning = true;
        actual.read(
                name -> full
                        || !actual.contains(name)
                        || plan.actionFor(name, actual.get(name), view()).isPresent(),
                operations::busy,
                (name, error) -> failed(name, name == null ? "list tables" : "describe", error),
                () -> {
                    metrics.observe(actual.all());
                    watch.observe();
                    actual.names().forEach(actions::reconcile);
                    if (!read) {
                        read = true;
                        beforeFirstRead.forEach(this::create); // open when asked for; lowered at once if closed now
                        beforeFirstRead.clear();
                    }
                    passDone();
                });
    }

    private void passDone() {
        passRunning = false;
        if (passAgain) {
            passAgain = false;
            pass(false);
        }
    }

    private TablePlan.View view() {
        long lowerBy = lowering.lowerBy(state.watermark);
        return new TablePlan.View(
                state.hasWatermark() ? watermark() : null,
                Instant.ofEpochMilli(lowerBy),
                Instant.ofEpochMilli(host.wallClockMillis()),
                actions.ttlOn(),
                retention.leftAlone(),
                retention.archived());
    }

    @Override
    public void close() {
        retention.close();
    }

    private Instant watermark() {
        return Instant.ofEpochMilli(state.watermark);
    }

    private void failed(String table, String what, Throwable error) {
        metrics.failures.inc();
        if (table != null) {
            operations.failed(table);
        }
        String name = table == null ? "" : table;
        if (ControlPlaneErrors.unwrap(error) instanceof RetryLoop.ManagerClosed) {
            LOG.info("Rotation stopped before it could {} {}: the job is ending", what, name);
            return;
        }
        if (ControlPlaneErrors.unwrap(error) instanceof ThroughputQuotaRefused refused) {
            throw refused; // fails the job: every tick would ask for the same throughput again
        }
        String why = ControlPlaneErrors.describe(error);
        LOG.warn("Rotation could not {} {}: {}; trying again from the next tick", what, name, why);
        host.emit(new RotationEvent(RotationEvent.Kind.FAILED, table, null, state.watermark, 0, what + ": " + why));
    }
}
