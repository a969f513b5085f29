package io.periodtables.rotation.controlplane;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacitySizing;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.rotation.lifecycle.DecreaseQuota;
import io.periodtables.rotation.lifecycle.ManagedTable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/**
 * {@link TableManager}'s changes to the capacity of existing tables, and which tier a capacity
 * is: the move to a tier's capacity (and table class), the sink's fallback raise of a closed table
 * back to the {@code current} tier, prewarming an on-demand table, and an open table's
 * registration with Application Auto Scaling. A table leaves auto scaling before it is lowered,
 * since auto scaling would undo the lower tier. A decrease DynamoDB refuses because the table's
 * quota of decreases per UTC day is used up is not retried: it fails with {@link
 * DecreaseQuota.Refused}, which says when the quota allows the next one. Increases are not
 * limited. Concurrent raises of one table share one operation.
 */
final class CapacityChanges implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CapacityChanges.class);

    private final PeriodTablesConfig config;
    private final DynamoDbAsyncClient client;
    private final TableCalls calls;
    private final RetryLoop retry;
    private final TableManagerSettings settings;
    private final Clock clock;
    private final CapacitySizing sizing;
    private final AutoScaling autoScaling;
    private final Map<String, CompletableFuture<Optional<ManagedTable>>> raising = new ConcurrentHashMap<>();

    /** {@code autoScaling} null: open tables keep the capacity they were given. */
    CapacityChanges(
            PeriodTablesConfig config,
            DynamoDbAsyncClient client,
            TableCalls calls,
            RetryLoop retry,
            TableManagerSettings settings,
            Clock clock,
            AutoScaling autoScaling) {
        this.config = config;
        this.client = client;
        this.calls = calls;
        this.retry = retry;
        this.settings = settings;
        this.clock = clock;
        this.sizing = new CapacitySizing(config);
        this.autoScaling = autoScaling;
    }

    /** An open provisioned table goes to auto scaling; without it, it just keeps its capacity (logged). */
    CompletableFuture<ManagedTable> registerIfOpen(ManagedTable table) {
        if (autoScaling == null || table.capacity().onDemand() || tierOf(table).orElse(null) != CapacityTier.CURRENT) {
            return CompletableFuture.completedFuture(table);
        }
        return retry.run("register " + table.name() + " with auto scaling", () -> autoScaling.register(table.name()))
                .handle((ok, error) -> {
                    if (error != null) {
                        LOG.warn(
                                "Could not register table {} with Application Auto Scaling: {}; it keeps {}",
                                table.name(),
                                ControlPlaneErrors.describe(error),
                                table.capacity());
                    }
                    return table;
                });
    }

    /** See {@link TableManager#setCapacity(String, Capacity, String)}. */
    CompletableFuture<Optional<ManagedTable>> setCapacity(String tableName, Capacity target, String tableClass) {
        return retry.run(
                "set tier of " + tableName,
                () -> calls.describe(tableName).thenCompose(found -> {
                    if (found.isEmpty()
                            || TableStatus.DELETING
                                    .toString()
                                    .equals(found.get().status())) {
                        return CompletableFuture.completedFuture(Optional.<ManagedTable>empty());
                    }
                    ManagedTable table = found.get();
                    if (!table.isActive()) {
                        throw new RetryLaterException("table " + tableName + " is " + table.status(), null, null);
                    }
                    String changeClass =
                            tableClass == null || tableClass.equals(table.tableClass()) ? null : tableClass;
                    if (table.capacity().equals(target) && changeClass == null) {
                        return CompletableFuture.completedFuture(found);
                    }
                    // Auto scaling would undo a lower tier: the table leaves it first.
                    CompletableFuture<Void> leave =
                            autoScaling != null && DecreaseQuota.isDecrease(table.capacity(), target)
                                    ? autoScaling.deregister(tableName)
                                    : CompletableFuture.completedFuture(null);
                    return leave.thenCompose(left -> client.updateTable(
                                    TableRequests.update(tableName, table.capacity(), target, changeClass)))
                            .handle((ok, error) -> {
                                if (error == null || ControlPlaneErrors.isSameThroughput(error)) {
                                    return null;
                                }
                                if (ControlPlaneErrors.isLimitExceeded(error)
                                        && DecreaseQuota.isDecrease(table.capacity(), target)) {
                                    Instant now = clock.instant();
                                    Duration wait = settings.decreaseQuotaDelay()
                                            .orElseGet(() -> Duration.between(now, DecreaseQuota.next(now, table)));
                                    throw new DecreaseQuota.Refused(tableName, wait, ControlPlaneErrors.unwrap(error));
                                }
                                throw new CompletionException(
                                        ControlPlaneErrors.ofTableRequest(error, tableName, config));
                            })
                            .thenCompose(ignored -> calls.untilActive(tableName, false))
                            .thenApply(Optional::of);
                }));
    }

    /** See {@link TableManager#raiseToOpenTier}. */
    CompletableFuture<Optional<ManagedTable>> raiseToOpenTier(String tableName) {
        CompletableFuture<Optional<ManagedTable>> mine = new CompletableFuture<>();
        CompletableFuture<Optional<ManagedTable>> running = raising.putIfAbsent(tableName, mine);
        if (running != null) {
            return running.copy();
        }
        Capacity open = config.effectiveCapacity(CapacityTier.CURRENT);
        retry.run(
                        "raise " + tableName,
                        () -> calls.describe(tableName).thenCompose(found -> {
                            // closed, or open and sized from the fleet's rate below what a backfill writes
                            boolean below = found.isPresent()
                                    && found.get().isActive()
                                    && !found.get().capacity().onDemand()
                                    && !open.onDemand()
                                    && found.get().capacity().writeUnits() < open.writeUnits();
                            if (!below) {
                                return CompletableFuture.completedFuture(Optional.<ManagedTable>empty());
                            }
                            ManagedTable table = found.get();
                            Capacity raised = Capacity.provisioned(
                                    open.writeUnits(),
                                    Math.max(open.readUnits(), table.capacity().readUnits()));
                            return client.updateTable(TableRequests.update(tableName, table.capacity(), raised))
                                    .handle((ok, error) -> {
                                        if (error != null && ControlPlaneErrors.isSameThroughput(error)) {
                                            return Optional
                                                    .<ManagedTable>empty(); // another sink subtask raised it meanwhile
                                        } else if (error != null) {
                                            throw new CompletionException(
                                                    ControlPlaneErrors.ofTableRequest(error, tableName, config));
                                        }
                                        LOG.info(
                                                "Raised table {} to the current tier ({} -> {}): the sink was"
                                                        + " throttled writing to it for long; the rotation lowers it"
                                                        + " when it closes, and not sooner than rotation.lead after"
                                                        + " this raise",
                                                tableName,
                                                table.capacity(),
                                                raised);
                                        return Optional.of(table);
                                    });
                        }))
                .whenComplete((raised, error) -> {
                    raising.remove(tableName, mine);
                    if (error != null) {
                        mine.completeExceptionally(ControlPlaneErrors.unwrap(error));
                    } else {
                        mine.complete(raised);
                    }
                });
        return mine.copy();
    }

    /**
     * See {@link TableManager#warm}. The UpdateTable is sent until it is answered, then only the
     * table's description is asked again until DynamoDB reports the warm throughput {@code ACTIVE}:
     * it applies the change asynchronously, and asking again for a change under way is not a retry.
     */
    CompletableFuture<Optional<ManagedTable>> warm(String tableName, long warmWrites) {
        return retry.run(
                        "prewarm " + tableName,
                        () -> client.updateTable(TableRequests.warm(tableName, warmWrites))
                                .handle((ok, error) -> {
                                    if (error != null && ControlPlaneErrors.isNotFound(error)) {
                                        return false;
                                    }
                                    if (error != null) {
                                        throw new CompletionException(
                                                ControlPlaneErrors.ofTableRequest(error, tableName, config));
                                    }
                                    return true;
                                }))
                .thenCompose(found -> found
                        ? retry.run("warm " + tableName, () -> calls.untilWarm(tableName, warmWrites))
                                .thenApply(Optional::of)
                        : CompletableFuture.completedFuture(Optional.<ManagedTable>empty()));
    }

    /** See {@link TableManager#tierOf}. */
    Optional<CapacityTier> tierOf(ManagedTable table) {
        for (int i = CapacityTier.values().length - 1; i >= 0; i--) {
            CapacityTier tier = CapacityTier.values()[i];
            if (config.effectiveCapacity(tier).equals(table.capacity())) {
                return Optional.of(tier);
            }
        }
        return sizing.isOpen(table.capacity()) ? Optional.of(CapacityTier.CURRENT) : Optional.empty();
    }

    @Override
    public void close() {
        if (autoScaling != null) {
            autoScaling.close();
        }
    }
}
