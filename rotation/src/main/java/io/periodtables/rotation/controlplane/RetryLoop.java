package io.periodtables.rotation.controlplane;

import io.periodtables.core.dynamodb.Backoff;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one control-plane operation as a series of asynchronous attempts on a scheduler: a
 * transient failure ({@link ControlPlaneErrors#isTransient}) is retried after the project's
 * {@link Backoff} up to {@link TableManagerSettings#maxAttempts()}, a
 * {@link RetryLaterException} is retried after its own delay up to
 * {@link TableManagerSettings#maxDeferrals()}, anything else fails the operation. No thread
 * ever sleeps: the next attempt is a scheduled task.
 */
public final class RetryLoop {
    private static final Logger LOG = LoggerFactory.getLogger(RetryLoop.class);

    private final ScheduledExecutorService scheduler;
    private final TableManagerSettings settings;
    private final Backoff backoff;

    RetryLoop(ScheduledExecutorService scheduler, TableManagerSettings settings) {
        this.scheduler = scheduler;
        this.settings = settings;
        this.backoff = new Backoff(settings.initialBackoff(), settings.maxBackoff());
    }

    /** Runs {@code attempt} until it succeeds or the failure is final; {@code what} names it in logs. */
    <T> CompletableFuture<T> run(String what, Supplier<CompletableFuture<T>> attempt) {
        CompletableFuture<T> result = new CompletableFuture<>();
        new Attempts<>(what, attempt, result).next();
        return result;
    }

    private final class Attempts<T> {
        private final String what;
        private final Supplier<CompletableFuture<T>> attempt;
        private final CompletableFuture<T> result;
        private int failures;
        private int deferrals;

        Attempts(String what, Supplier<CompletableFuture<T>> attempt, CompletableFuture<T> result) {
            this.what = what;
            this.attempt = attempt;
            this.result = result;
        }

        void next() {
            CompletableFuture<T> future;
            try {
                future = attempt.get();
            } catch (RuntimeException e) {
                future = CompletableFuture.failedFuture(e);
            }
            future.whenComplete((value, error) -> {
                if (error == null) {
                    result.complete(value);
                } else {
                    onFailure(ControlPlaneErrors.unwrap(error));
                }
            });
        }

        private void onFailure(Throwable error) {
            if (scheduler.isShutdown()) {
                // Closed while the attempt ran (the end of a run): its failure is the closing client's.
                result.completeExceptionally(new ManagerClosed(what, error));
                return;
            }
            Duration delay;
            if (error instanceof RetryLaterException) {
                deferrals++;
                if (deferrals > settings.maxDeferrals()) {
                    giveUp(error, "put off " + (deferrals - 1) + " times");
                    return;
                }
                delay = ((RetryLaterException) error).delay().orElseGet(() -> backoff(deferrals));
            } else if (ControlPlaneErrors.isTransient(error)) {
                failures++;
                if (failures >= settings.maxAttempts()) {
                    giveUp(error, failures + " attempts failed");
                    return;
                }
                delay = backoff(failures);
            } else {
                result.completeExceptionally(error);
                return;
            }
            LOG.info("{}: {}; trying again in {}", what, ControlPlaneErrors.describe(error), delay);
            try {
                scheduler.schedule(this::next, delay.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                result.completeExceptionally(new ManagerClosed(what, error));
            }
        }

        private void giveUp(Throwable error, String why) {
            LOG.warn("{}: giving up, {}: {}", what, why, ControlPlaneErrors.describe(error));
            result.completeExceptionally(error);
        }

        private Duration backoff(int n) {
            return Duration.ofMillis(Math.max(1, backoff.delayMillis(n)));
        }
    }

    /** An operation cut short because its table manager closed (the end of a run): not a failure of the table. */
    public static final class ManagerClosed extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        ManagerClosed(String what, Throwable cause) {
            super(what + ": the table manager is closed", cause);
        }
    }
}
