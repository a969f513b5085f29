package io.periodtables.rotation.reconcile;

import io.periodtables.core.period.Period;
import io.periodtables.rotation.controlplane.ControlPlaneErrors;
import io.periodtables.rotation.lifecycle.RetentionGate;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Reconciler}'s side of a {@link RetentionGate}: which periods are known archived,
 * checks of the others on a background thread (the gate may read S3, and the operator's thread
 * carries the watermark), and the log, once per period, of the expired tables retention keeps
 * waiting for. A period found archived is remembered (a marker is never removed); one that was
 * not is asked about again on later passes. Used from the operator's thread only.
 */
public final class ArchiveWait implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ArchiveWait.class);

    private final RetentionGate gate;
    private final Reconciler.Host host;
    private final Set<Period> archived = new HashSet<>();
    private final Set<Period> checking = new HashSet<>();
    private final Set<Period> waitLogged = new HashSet<>();
    private final Set<Period> failureLogged = new HashSet<>();
    private ExecutorService checks;

    ArchiveWait(RetentionGate gate, Reconciler.Host host) {
        this.gate = gate;
        this.host = host;
    }

    /** The periods known archived: retention may delete their tables. */
    Set<Period> archived() {
        return archived;
    }

    int running() {
        return checking.size();
    }

    /**
     * Asks the gate, off this thread, whether {@code period} is archived now; {@code then} runs on
     * the operator's thread once it is. One check per period at a time.
     */
    void check(Period period, String table, Runnable then) {
        if (archived.contains(period) || !checking.add(period)) {
            return;
        }
        if (checks == null) {
            checks = Executors.newSingleThreadExecutor(r -> {
                Thread thread = new Thread(r, "retention-archive-checks");
                thread.setDaemon(true);
                return thread;
            });
        }
        CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return gate.archived(period);
                            } catch (Exception e) {
                                throw new java.util.concurrent.CompletionException(e);
                            }
                        },
                        checks)
                .whenComplete((yes, error) -> host.post(() -> {
                    checking.remove(period);
                    if (error != null) {
                        if (failureLogged.add(period)) {
                            LOG.warn(
                                    "Retention keeps table {}: cannot read {} ({}); it counts as not archived and is"
                                            + " asked again on later passes",
                                    table,
                                    gate.where(period),
                                    ControlPlaneErrors.unwrap(error).toString());
                        }
                    } else if (yes) {
                        archived.add(period);
                        if (waitLogged.remove(period)) {
                            LOG.info(
                                    "Period {} is archived ({}): retention deletes table {}",
                                    period.label(),
                                    gate.where(period),
                                    table);
                        }
                        then.run();
                    } else if (waitLogged.add(period)) {
                        LOG.info(
                                "Retention keeps table {} past tables.retention until period {} is archived: {} does"
                                        + " not exist yet",
                                table,
                                period.label(),
                                gate.where(period));
                    }
                }));
    }

    @Override
    public void close() {
        if (checks != null) {
            checks.shutdownNow();
        }
    }
}
