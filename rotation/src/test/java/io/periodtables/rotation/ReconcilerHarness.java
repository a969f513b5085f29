package io.periodtables.rotation;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.rotation.controlplane.TableManager;
import io.periodtables.rotation.lifecycle.RetentionGate;
import io.periodtables.rotation.reconcile.Reconciler;
import io.periodtables.rotation.reconcile.RotationEvent;
import io.periodtables.rotation.reconcile.RotationMetrics;
import io.periodtables.rotation.reconcile.RotationState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;

/**
 * A {@link Reconciler} outside Flink for tests: its mailbox is a queue the test drains, its wall
 * clock is set by the test, its events are collected. The table manager carries {@link CallLog}
 * plus any further interceptors.
 */
public final class ReconcilerHarness implements AutoCloseable {
    final PeriodTablesConfig config;
    public final TableManager manager;
    public final RotationState state = new RotationState();
    public final RotationMetrics metrics = new RotationMetrics(new UnregisteredMetricsGroup());
    public final List<RotationEvent> events = new ArrayList<>();
    public final AtomicLong wallClock;
    public final Reconciler reconciler;
    private final LinkedBlockingQueue<Runnable> mailbox = new LinkedBlockingQueue<>();

    @SafeVarargs
    public ReconcilerHarness(
            PeriodTablesConfig config,
            Instant wallClock,
            Class<? extends software.amazon.awssdk.core.interceptor.ExecutionInterceptor>... more) {
        this(config, wallClock, null, null, more);
    }

    /** With retention waiting for {@code gate}. */
    @SafeVarargs
    public ReconcilerHarness(
            PeriodTablesConfig config,
            Instant wallClock,
            RetentionGate gate,
            Class<? extends software.amazon.awssdk.core.interceptor.ExecutionInterceptor>... more) {
        this(config, wallClock, gate, null, more);
    }

    /** With retention waiting for {@code gate} (may be null) and lowering waiting for {@code writers} (may be null). */
    @SafeVarargs
    public ReconcilerHarness(
            PeriodTablesConfig config,
            Instant wallClock,
            RetentionGate gate,
            Reconciler.Writers writers,
            Class<? extends software.amazon.awssdk.core.interceptor.ExecutionInterceptor>... more) {
        this.config = config;
        this.wallClock = new AtomicLong(wallClock.toEpochMilli());
        List<Class<? extends software.amazon.awssdk.core.interceptor.ExecutionInterceptor>> interceptors =
                new ArrayList<>(List.of(CallLog.class));
        interceptors.addAll(List.of(more));
        this.manager = TableManager.create(
                config,
                io.periodtables.core.dynamodb.DynamoDbClients.of(config).withInterceptors(interceptors),
                TestSetup.fastSettings());
        this.reconciler = new Reconciler(
                manager,
                config,
                state,
                metrics,
                new Reconciler.Host() {
                    @Override
                    public void post(Runnable action) {
                        mailbox.add(action);
                    }

                    @Override
                    public void emit(RotationEvent event) {
                        events.add(event);
                    }

                    @Override
                    public long wallClockMillis() {
                        return ReconcilerHarness.this.wallClock.get();
                    }
                },
                gate,
                writers);
    }

    public ReconcilerHarness watermark(Instant t) throws InterruptedException {
        reconciler.onWatermark(t.toEpochMilli());
        return drain();
    }

    public ReconcilerHarness start() throws InterruptedException {
        reconciler.start();
        return drain();
    }

    /** Reads the writers' acknowledged watermark (when a closed table waits for it) and runs what follows. */
    public ReconcilerHarness poll() throws InterruptedException {
        reconciler.pollWriters();
        return drain();
    }

    public ReconcilerHarness tick() throws InterruptedException {
        reconciler.tick();
        return drain();
    }

    /** Runs the mailbox until no operation is pending (at most 30 s). */
    public ReconcilerHarness drain() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (reconciler.pending() > 0 || !mailbox.isEmpty()) {
            assertThat(System.nanoTime())
                    .as("operations did not finish within 30 s")
                    .isLessThan(deadline);
            Runnable action = mailbox.poll(20, TimeUnit.MILLISECONDS);
            if (action != null) {
                action.run();
            }
        }
        return this;
    }

    @Override
    public void close() {
        reconciler.close();
        manager.close();
    }
}
