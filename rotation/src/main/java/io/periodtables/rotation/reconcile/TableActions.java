package io.periodtables.rotation.reconcile;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.rotation.controlplane.TableManager;
import io.periodtables.rotation.controlplane.TableSchemaMismatchException;
import io.periodtables.rotation.lifecycle.DecreaseQuota;
import io.periodtables.rotation.lifecycle.ManagedTable;
import io.periodtables.rotation.lifecycle.OpenCapacity;
import io.periodtables.rotation.lifecycle.TablePlan;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Reconciler}'s work on one table: creates a period's table (and its rollups table),
 * and applies to a known table the action {@link TablePlan} wants for it — prewarm, turn TTL on,
 * move to a tier, or hand it to {@link RetentionSweep} to delete — each through {@link
 * TableOperations}, so a table has one operation at a time. Each result updates {@link
 * ActualTables}, is logged and emitted as a {@link RotationEvent}, and the table is reconciled
 * again until the plan wants nothing more. A capacity decrease waits while DynamoDB's quota of
 * decreases per table and day is used up, whether {@link DecreaseQuota} foresees it or DynamoDB
 * refuses the change. Used from the operator's thread only.
 */
final class TableActions {
    private static final Logger LOG = LoggerFactory.getLogger(TableActions.class);

    private final TableManager tables;
    private final TableNaming naming;
    private final TablePlan plan;
    private final OpenCapacity open;
    private final ActualTables actual;
    private final TableOperations operations;
    private final RetentionSweep retention;
    private final RotationMetrics metrics;
    private final Reconciler.Host host;
    private final LongSupplier watermark;
    private final Supplier<TablePlan.View> view;
    private final RetentionSweep.Failures failures;
    /** Whether each period also has a rollups table ({@code rollups.every}). */
    private final boolean rollups;

    private final Set<String> ttlOn = new HashSet<>();

    TableActions(
            TableManager tables,
            PeriodTablesConfig config,
            TablePlan plan,
            OpenCapacity open,
            ActualTables actual,
            TableOperations operations,
            RetentionSweep retention,
            RotationMetrics metrics,
            Reconciler.Host host,
            LongSupplier watermark,
            Supplier<TablePlan.View> view,
            RetentionSweep.Failures failures) {
        this.tables = tables;
        this.naming = config.naming();
        this.plan = plan;
        this.open = open;
        this.actual = actual;
        this.operations = operations;
        this.retention = retention;
        this.metrics = metrics;
        this.host = host;
        this.watermark = watermark;
        this.view = view;
        this.failures = failures;
        this.rollups = config.find(ConfigKeys.ROLLUPS_EVERY).isPresent();
    }

    /** Tables this rotation turned TTL on for. */
    Set<String> ttlOn() {
        return ttlOn;
    }

    /**
     * Creates the table of {@code period} (and its rollups table) unless it is known or busy; {@code why} is logged.
     */
    void create(Period period, String why) {
        if (rollups) {
            createRollups(period);
        }
        String name = naming.periodTable(period);
        if (actual.contains(name) || operations.busy(name)) {
            return;
        }
        long lead = period.startMillis() - watermark.getAsLong();
        long warm = open.warmWrites(period);
        operations.start(name, "create", tables.ensure(period, open.of(period), warm), (table, error) -> {
            if (error != null) {
                failures.failed(name, "create", error);
                if (error instanceof TableSchemaMismatchException) {
                    throw (TableSchemaMismatchException) error; // fails the job: nothing can be written there
                }
                return;
            }
            actual.put(table);
            metrics.prebuildLead(lead);
            if (table.created()) {
                metrics.tablesCreated.inc();
                LOG.info(
                        "Created table {} at tier CURRENT ({}{}): {}; its period starts {} by the watermark when it"
                                + " was asked for",
                        name,
                        table.capacity(),
                        warm > 0
                                ? ", prewarmed to " + warm + " writes/s from the peak of "
                                        + naming.periodTable(open.sizedFrom(period))
                                : "",
                        why,
                        TablePlan.relative(lead));
            }
            host.emit(new RotationEvent(
                    RotationEvent.Kind.TABLE_READY,
                    name,
                    tables.tierOf(table).orElse(null),
                    watermark.getAsLong(),
                    lead,
                    table.created() ? "created" : "existed"));
            reconcile(name);
        });
    }

    /**
     * The rollups table of a period is created with its period table, on-demand (its writes come
     * in bursts), prewarmed from the rollups peak of the period the period table is sized from.
     */
    private void createRollups(Period period) {
        String name = naming.rollupsTable(period);
        if (actual.contains(name) || operations.busy(name)) {
            return;
        }
        long warm = open.rollupsWarmWrites(period);
        operations.start(name, "create", tables.ensureRollupsTable(period, warm), (table, error) -> {
            if (error != null) {
                failures.failed(name, "create", error);
                return;
            }
            actual.put(table);
            if (table.created()) {
                LOG.info(
                        "Created table {} (on-demand{}) for the rollups of period {}",
                        name,
                        warm > 0
                                ? ", prewarmed to " + warm + " writes/s from the peak of "
                                        + naming.rollupsTable(open.sizedFrom(period))
                                : "",
                        period.label());
            }
            reconcile(name);
        });
    }

    /** Applies the one action {@link TablePlan} wants for a known table, if any and if it may run now. */
    void reconcile(String name) {
        ManagedTable table = actual.get(name);
        if (table == null || operations.busy(name)) {
            return;
        }
        TablePlan.View view = this.view.get();
        plan.awaitedArchive(name, table, view)
                .ifPresent(period -> retention.awaitArchive(name, period, () -> reconcile(name)));
        Optional<TablePlan.Action> action = plan.actionFor(name, table, view);
        if (action.isEmpty()) {
            return;
        }
        TablePlan.Action a = action.get();
        Instant now = Instant.ofEpochMilli(host.wallClockMillis());
        switch (a.kind()) {
            case DELETE -> retention.delete(name);
            case WARM ->
                operations.startForWritesToCome(name, "prewarm", tables.warm(name, a.warmWrites()), (after, error) -> {
                    if (error != null) {
                        failures.failed(name, "prewarm", error);
                        return;
                    }
                    after.ifPresentOrElse(
                            warmed -> {
                                actual.put(warmed);
                                LOG.info(
                                        "Prewarmed table {} to {} writes/s, sized from the peak of {} (at most"
                                                + " tables.warm-throughput.max): {}",
                                        name,
                                        a.warmWrites(),
                                        sizedFromName(name),
                                        a.why());
                                reconcile(name);
                            },
                            () -> actual.remove(name));
                });
            case ENABLE_TTL ->
                operations.start(name, "enable TTL", tables.enableTtl(name), (changed, error) -> {
                    if (error != null) {
                        failures.failed(name, "enable TTL", error);
                    } else {
                        ttlOn.add(name);
                    }
                });
            case SET_TIER -> {
                if (a.decrease() && !DecreaseQuota.allows(now, table)) {
                    operations.waitForQuota(table, DecreaseQuota.next(now, table));
                    return;
                }
                operations.start(
                        name,
                        "tier " + a.tier(),
                        tables.setCapacity(name, a.target(), a.tableClass()),
                        (changed, error) -> onTierSet(name, table, a, changed, error));
            }
        }
    }

    /** The table of the same kind whose peak sizes the period or rollups table {@code name}. */
    private String sizedFromName(String name) {
        TableNaming.TableRef ref = naming.parse(name).orElseThrow();
        Period from = open.sizedFrom(ref.period());
        return ref.kind() == TableNaming.TableRef.Kind.ROLLUPS ? naming.rollupsTable(from) : naming.periodTable(from);
    }

    private void onTierSet(
            String name, ManagedTable before, TablePlan.Action action, Optional<ManagedTable> after, Throwable error) {
        if (error instanceof DecreaseQuota.Refused refused) {
            operations.waitForQuota(
                    before, Instant.ofEpochMilli(host.wallClockMillis()).plus(refused.waitFor()));
            return;
        }
        if (error != null) {
            failures.failed(name, "tier change", error);
            return;
        }
        if (after.isEmpty()) {
            actual.remove(name);
            return;
        }
        actual.put(after.get());
        boolean changed = !after.get().capacity().equals(before.capacity())
                || !after.get().tableClass().equals(before.tableClass());
        if (changed) {
            metrics.tierChanges.inc();
            LOG.info(
                    "{} table {} to tier {} ({} -> {}{}): {}",
                    action.decrease()
                            ? "Lowered"
                            : before.capacity().equals(after.get().capacity()) ? "Moved" : "Raised",
                    name,
                    action.tier(),
                    before.capacity(),
                    after.get().capacity(),
                    after.get().tableClass().equals(before.tableClass())
                            ? ""
                            : ", " + after.get().tableClass(),
                    action.why());
        }
        host.emit(new RotationEvent(
                RotationEvent.Kind.TIER_SET,
                name,
                action.tier(),
                watermark.getAsLong(),
                0,
                changed ? "changed" : "unchanged"));
        reconcile(name);
    }
}
