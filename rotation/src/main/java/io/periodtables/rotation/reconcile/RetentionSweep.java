package io.periodtables.rotation.reconcile;

import io.periodtables.core.period.Period;
import io.periodtables.rotation.controlplane.TableManager;
import io.periodtables.rotation.lifecycle.RetentionGate;
import io.periodtables.rotation.lifecycle.TablePlan;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongSupplier;
import javax.annotation.Nullable;

/**
 * The {@link Reconciler}'s retention: deletes the tables {@link TablePlan} finds past
 * {@code tables.retention}, remembers the expired tables it must leave alone (not ours, or
 * deletion protection on), and, with a {@link RetentionGate}, keeps an expired table until its
 * period is archived ({@link ArchiveWait}). Used from the operator's thread only.
 */
public final class RetentionSweep implements AutoCloseable {

    /** How the reconciler reports a failed call. */
    interface Failures {
        void failed(String table, String what, Throwable error);
    }

    private final TableManager tables;
    private final TableOperations operations;
    private final ActualTables actual;
    private final RotationMetrics metrics;
    private final Reconciler.Host host;
    private final LongSupplier watermark;
    private final Failures failures;

    @Nullable
    private final ArchiveWait archive;

    private final Set<String> leftAlone = new HashSet<>();

    RetentionSweep(
            TableManager tables,
            TableOperations operations,
            ActualTables actual,
            RotationMetrics metrics,
            Reconciler.Host host,
            LongSupplier watermark,
            Failures failures,
            @Nullable RetentionGate gate) {
        this.tables = tables;
        this.operations = operations;
        this.actual = actual;
        this.metrics = metrics;
        this.host = host;
        this.watermark = watermark;
        this.failures = failures;
        this.archive = gate == null ? null : new ArchiveWait(gate, host);
    }

    /** Expired tables retention must not touch. */
    Set<String> leftAlone() {
        return leftAlone;
    }

    /** Periods known archived; null when retention waits for no archive. */
    @Nullable
    Set<Period> archived() {
        return archive == null ? null : archive.archived();
    }

    /** Archive checks started and not yet reported back. */
    int running() {
        return archive == null ? 0 : archive.running();
    }

    /** {@code table} is expired and waits for {@code period}'s archive: asks again, {@code then} once it is there. */
    void awaitArchive(String table, Period period, Runnable then) {
        if (archive != null) {
            archive.check(period, table, then);
        }
    }

    void delete(String name) {
        operations.start(name, "delete", tables.delete(name), (deletion, error) -> onDeleted(name, deletion, error));
    }

    private void onDeleted(String name, TableManager.Deletion deletion, Throwable error) {
        if (error != null) {
            failures.failed(name, "delete", error);
        } else if (deletion == TableManager.Deletion.DELETED) {
            actual.remove(name);
            metrics.retentionDeletions.inc();
            host.emit(new RotationEvent(
                    RotationEvent.Kind.TABLE_DELETED, name, null, watermark.getAsLong(), 0, "retention"));
        } else {
            leftAlone.add(name);
            if (deletion == TableManager.Deletion.PROTECTED) {
                metrics.deletionProtectedSkips.inc();
                host.emit(new RotationEvent(
                        RotationEvent.Kind.DELETION_PROTECTED,
                        name,
                        null,
                        watermark.getAsLong(),
                        0,
                        "past retention, deletion protection on"));
            }
        }
    }

    @Override
    public void close() {
        if (archive != null) {
            archive.close();
        }
    }
}
