package io.periodtables.rotation.reconcile;

import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.period.TableNaming;
import io.periodtables.rotation.lifecycle.Lifecycle;
import io.periodtables.rotation.lifecycle.LoweringBound;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Reconciler}'s watch on the sink writers: while the watermark has closed a period
 * the writers have not written through, its table keeps its tier, because the watermark closing a
 * period does not mean its readings are in DynamoDB (the sink may still hold them in its buffer,
 * in a request or in its retry queue, and a checkpoint does not flush them). So the reconciler
 * reads the writers' acknowledged watermark from the writers table, one read at a time, hands it
 * to {@link LoweringBound}, and reports how many tables wait. A wait that learns nothing for
 * {@code rotation.lowering-stall-after} of wall-clock time (the writers table deleted, a permission
 * missing, a writer stuck) is an ERROR, logged once per stall, and the gauge {@code
 * loweringStalled}: closed tables then cost their open capacity until someone looks. Used from the
 * operator's thread only.
 */
final class WritersWatch {
    private static final Logger LOG = LoggerFactory.getLogger(WritersWatch.class);
    private static final long NOT_WAITING = Long.MIN_VALUE;
    private final Reconciler.Writers writers;
    private final LoweringBound lowering;
    private final Lifecycle lifecycle;
    private final TableNaming naming;
    private final ActualTables actual;
    private final RotationState state;
    private final RotationMetrics metrics;
    private final Reconciler.Host host;
    private final RetentionSweep.Failures failures;
    private final Duration stallAfter;

    private boolean polling;
    /** Wall-clock ms since closed tables wait and the writers' report has not moved. */
    private long waitingSince = NOT_WAITING;

    private boolean stalled;

    /** {@code writers} null: none to wait for ({@link LoweringBound#waitsForWriters()} is false). */
    WritersWatch(
            Reconciler.Writers writers,
            LoweringBound lowering,
            Lifecycle lifecycle,
            TableNaming naming,
            ActualTables actual,
            RotationState state,
            RotationMetrics metrics,
            Reconciler.Host host,
            RetentionSweep.Failures failures,
            Duration stallAfter) {
        this.writers = writers;
        this.lowering = lowering;
        this.lifecycle = lifecycle;
        this.naming = naming;
        this.actual = actual;
        this.state = state;
        this.metrics = metrics;
        this.host = host;
        this.failures = failures;
        this.stallAfter = stallAfter;
    }

    /**
     * Reads the writers' acknowledged watermark when a closed table waits for it; {@code moved}
     * runs when the read moved the bound. At most one read at a time.
     */
    void poll(Runnable moved) {
        watchStall();
        if (polling || !awaiting()) {
            return;
        }
        polling = true;
        writers.acknowledged()
                .whenComplete((value, error) -> host.post(() -> {
                    polling = false;
                    if (error != null) {
                        failures.failed(null, "read the writers table", error);
                        return;
                    }
                    if (value.isPresent() && lowering.acknowledged(value.getAsLong())) {
                        learned();
                        observe();
                        moved.run();
                    }
                }));
    }

    /** Notes since when closed tables wait without the writers' report moving; says so once it is too long. */
    private void watchStall() {
        if (!awaiting()) {
            learned();
            return;
        }
        long now = host.wallClockMillis();
        if (waitingSince == NOT_WAITING) {
            waitingSince = now;
        } else if (!stalled && now - waitingSince >= stallAfter.toMillis()) {
            stalled = true;
            metrics.loweringStalled(true);
            LOG.error(
                    "Closed tables have waited {} s for the sink writers' report in {} without it moving"
                            + " (rotation.lowering-stall-after = {}): they stay at their tier, neither lowered"
                            + " nor raised. Check that the table exists and that the job may write and read it"
                            + " (dynamodb:PutItem, dynamodb:Query), and which sink subtask has the lowest"
                            + " acknowledgedWatermark",
                    (now - waitingSince) / 1000,
                    naming.writersTable(),
                    stallAfter);
        }
    }

    /** The report moved, or nothing waits: a new wait starts now. */
    private void learned() {
        waitingSince = awaiting() ? host.wallClockMillis() : NOT_WAITING;
        if (stalled) {
            stalled = false;
            metrics.loweringStalled(false);
            LOG.info(
                    "The sink writers' report in {} moves again: lowering closed tables resumes",
                    naming.writersTable());
        }
    }

    /** True while a read of the writers table is under way. */
    boolean polling() {
        return polling;
    }

    /** True while a closed table waits for the writers' acknowledged watermark. */
    boolean awaiting() {
        return state.hasWatermark() && lowering.awaiting(state.watermark);
    }

    /** Sets the gauges: the writers' acknowledged watermark and the tables that wait for it. */
    void observe() {
        metrics.writers(lowering.acknowledged(), awaitingTables());
    }

    /** Known period tables the watermark has closed and the writers have not written through yet. */
    private int awaitingTables() {
        if (!state.hasWatermark() || !lowering.waitsForWriters()) {
            return 0;
        }
        long lowerBy = lowering.lowerBy(state.watermark);
        Instant watermark = Instant.ofEpochMilli(state.watermark);
        int waiting = 0;
        for (String name : actual.names()) {
            Optional<TableNaming.TableRef> ref = naming.parse(name);
            if (ref.isPresent()
                    && ref.get().kind() == TableNaming.TableRef.Kind.PERIOD
                    && lifecycle.admission(ref.get().period(), watermark) == Lifecycle.Admission.CLOSED
                    && lifecycle.tier(ref.get().period(), watermark, Instant.ofEpochMilli(lowerBy))
                            == CapacityTier.CURRENT) {
                waiting++;
            }
        }
        return waiting;
    }
}
