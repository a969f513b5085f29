package io.periodtables.rotation.controlplane;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacitySizing;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.rotation.lifecycle.DecreaseQuota;
import io.periodtables.rotation.lifecycle.Lifecycle;
import io.periodtables.rotation.lifecycle.ManagedTable;
import java.time.Clock;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.apache.flink.annotation.PublicEvolving;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The DynamoDB control-plane operations on period-tables' tables, each idempotent and
 * asynchronous: {@link #ensure} a table (create at the {@code current} tier, wait for ACTIVE,
 * check the key schema, TTL), {@link #setTier}, {@link #raiseToOpenTier} for a table that
 * throttles the sink, {@link #enableTtl}, {@link #delete}, {@link #list} and {@link #describe}.
 * Transient failures are retried on the manager's own scheduler; no method blocks. What to do,
 * and when, is decided elsewhere ({@link Lifecycle}, the rotation operator).
 *
 * <p>Created tables carry {@value TableNaming#MANAGED_BY_TAG}={@value TableNaming#MANAGED_BY_VALUE}
 * and their kind, period and shard count; {@link #delete} only deletes tables with that tag.
 * Concurrent ensures (and raises) of one table share one operation.
 */
@PublicEvolving
public final class TableManager implements AutoCloseable {
    /** Tag keys written on every created table, besides {@link TableNaming#MANAGED_BY_TAG}. */
    public static final String TAG_KIND = "period-tables.kind";

    public static final String TAG_PERIOD_START = "period-tables.period-start";
    public static final String TAG_PERIOD_END = "period-tables.period-end";
    public static final String TAG_LATE_MONTH = "period-tables.late-month";

    /** What {@link #delete} did. */
    @PublicEvolving
    public enum Deletion {
        DELETED,
        PROTECTED,
        NOT_OURS
    }

    private final PeriodTablesConfig config;
    private final TableNaming naming;
    private final DynamoDbAsyncClient client;
    private final boolean ownsClient;
    private final ScheduledThreadPoolExecutor scheduler;
    private final TableCalls calls;
    private final RetryLoop retry;
    private final TableCreation creation;
    private final CapacityChanges capacityChanges;

    /** A manager with a client of its own, built by {@code clients}; {@link #close()} closes it. */
    public static TableManager create(
            PeriodTablesConfig config, DynamoDbClients clients, TableManagerSettings settings) {
        return new TableManager(
                config,
                clients.newAsyncClient(settings.maxConcurrency()),
                true,
                settings,
                Clock.systemUTC(),
                AutoScaling.of(config).orElse(null));
    }

    /** A manager with default settings and a client from {@link DynamoDbClients#of}. */
    public static TableManager create(PeriodTablesConfig config) {
        return create(config, DynamoDbClients.of(config), TableManagerSettings.defaults());
    }

    /** A manager on a client that the caller keeps and closes. */
    public TableManager(
            PeriodTablesConfig config, DynamoDbAsyncClient client, TableManagerSettings settings, Clock clock) {
        this(config, client, false, settings, clock, null);
    }

    /** With {@code autoScaling} (closed by {@link #close()}) registering the open tables, or none. */
    TableManager(
            PeriodTablesConfig config,
            DynamoDbAsyncClient client,
            boolean ownsClient,
            TableManagerSettings settings,
            Clock clock,
            AutoScaling autoScaling) {
        this.config = config;
        this.naming = config.naming();
        this.client = client;
        this.ownsClient = ownsClient;
        this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = Executors.defaultThreadFactory().newThread(r);
            t.setName("period-tables-table-manager");
            t.setDaemon(true);
            return t;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        this.retry = new RetryLoop(scheduler, settings);
        this.calls = new TableCalls(client, naming, scheduler, settings);
        this.creation = new TableCreation(config, client, calls, retry, this::enableTtl);
        this.capacityChanges = new CapacityChanges(config, client, calls, retry, settings, clock, autoScaling);
    }

    /** Ensures the table of {@code period} exists and is ACTIVE, created with the {@code current} tier. */
    public CompletableFuture<ManagedTable> ensure(Period period) {
        return ensure(period, config.effectiveCapacity(CapacityTier.CURRENT));
    }

    /**
     * Ensures the table of {@code period} exists and is ACTIVE, created with {@code capacity} (an existing one is
     * kept).
     */
    public CompletableFuture<ManagedTable> ensure(Period period, Capacity capacity) {
        return ensure(period, capacity, 0);
    }

    /**
     * As {@link #ensure(Period, Capacity)}, an on-demand one created prewarmed to {@code warmWrites} writes/s (0: not).
     */
    public CompletableFuture<ManagedTable> ensure(Period period, Capacity capacity, long warmWrites) {
        Map<String, String> tags = creation.baseTags("period");
        tags.put(TAG_PERIOD_START, period.start().toString());
        tags.put(TAG_PERIOD_END, period.end().toString());
        return creation.ensure(
                        naming.periodTable(period), capacity, tags, config.ttl().isPresent(), warmWrites)
                .thenCompose(capacityChanges::registerIfOpen);
    }

    /** Ensures the late table of a UTC write month (on-demand, never tiered). */
    public CompletableFuture<ManagedTable> ensureLateTable(YearMonth month) {
        Map<String, String> tags = creation.baseTags("late");
        tags.put(TAG_LATE_MONTH, month.toString());
        String name =
                naming.lateTable(month.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant());
        return creation.ensure(name, Capacity.ON_DEMAND, tags, config.ttl().isPresent(), 0);
    }

    /** Ensures the rollups table of {@code period} (on-demand, never tiered), created cold. */
    public CompletableFuture<ManagedTable> ensureRollupsTable(Period period) {
        return ensureRollupsTable(period, 0);
    }

    /**
     * Ensures the rollups table of {@code period} (on-demand, never tiered): its writes come in
     * bursts, every device's bucket at the same watermark, so a new one is created prewarmed to
     * {@code warmWrites} writes/s (0: not).
     */
    public CompletableFuture<ManagedTable> ensureRollupsTable(Period period, long warmWrites) {
        Map<String, String> tags = creation.baseTags("rollups");
        tags.put(TAG_PERIOD_START, period.start().toString());
        tags.put(TAG_PERIOD_END, period.end().toString());
        return creation.ensure(
                naming.rollupsTable(period),
                Capacity.ON_DEMAND,
                tags,
                config.ttl().isPresent(),
                warmWrites);
    }

    /** Ensures the rejected table (on-demand, never tiered, no TTL). */
    public CompletableFuture<ManagedTable> ensureRejectedTable() {
        return creation.ensure(naming.rejectedTable(), Capacity.ON_DEMAND, creation.baseTags("rejected"), false, 0);
    }

    /** Ensures a period, rollups, late or rejected table of this prefix by its name; any other name fails. */
    public CompletableFuture<ManagedTable> ensureTable(String tableName) {
        Optional<TableNaming.TableRef> ref = naming.parse(tableName);
        if (ref.isEmpty()) {
            return CompletableFuture.failedFuture(
                    new IllegalArgumentException("'" + tableName + "' is not a table name of prefix '" + naming.prefix()
                            + "' and period " + naming.calendar().length()));
        }
        switch (ref.get().kind()) {
            case PERIOD:
                return ensure(ref.get().period());
            case LATE:
                return ensureLateTable(ref.get().lateMonth());
            case ROLLUPS:
                return ensureRollupsTable(ref.get().period());
            default:
                return ensureRejectedTable();
        }
    }

    /**
     * Moves a table to {@code tier}'s capacity and waits for ACTIVE; empty when the table does not
     * exist. A decrease DynamoDB refuses for its quota fails with {@link DecreaseQuota.Refused},
     * which says when to try again; nothing is retried here for it.
     */
    public CompletableFuture<Optional<ManagedTable>> setTier(String tableName, CapacityTier tier) {
        return setCapacity(tableName, config.effectiveCapacity(tier));
    }

    /** As {@link #setTier}, to any capacity (an open table sized from observation). */
    public CompletableFuture<Optional<ManagedTable>> setCapacity(String tableName, Capacity target) {
        return setCapacity(tableName, target, null);
    }

    /**
     * As {@link #setCapacity(String, Capacity)}, and to table class {@code tableClass} in the same
     * UpdateTable when it differs (null: the class stays).
     */
    public CompletableFuture<Optional<ManagedTable>> setCapacity(String tableName, Capacity target, String tableClass) {
        return capacityChanges.setCapacity(tableName, target, tableClass);
    }

    /**
     * For the sink when a table throttles its writes for long: a provisioned table with fewer
     * write units than the {@code current} tier goes to its write units (DynamoDB does not limit
     * increases; read units are not lowered): a closed one a replay or late readings write, or an
     * open one sized from the fleet's rate that a backfill writes faster. Present (the table as
     * it was) when this call raised it (not another subtask's); the rotation lowers it when it
     * closes, or again {@code rotation.lead} later.
     */
    public CompletableFuture<Optional<ManagedTable>> raiseToOpenTier(String tableName) {
        return capacityChanges.raiseToOpenTier(tableName);
    }

    /**
     * Prewarms an existing on-demand table to {@code warmWrites} write units per second and waits
     * until DynamoDB reports it warmed ({@code WarmThroughput} status {@code ACTIVE}); empty when
     * the table is gone.
     */
    public CompletableFuture<Optional<ManagedTable>> warm(String tableName, long warmWrites) {
        return capacityChanges.warm(tableName, warmWrites);
    }

    /** Turns TTL on (attribute {@code ttl}) unless it is on already; true when it was turned on. */
    public CompletableFuture<Boolean> enableTtl(String tableName) {
        return retry.run("enable TTL on " + tableName, () -> calls.enableTtl(tableName));
    }

    /** Deletes a table that carries our tag and has no deletion protection (a missing one counts as deleted). */
    public CompletableFuture<Deletion> delete(String tableName) {
        return retry.run("delete " + tableName, () -> calls.delete(tableName))
                .thenApply(deletion -> TableCalls.logged(tableName, deletion));
    }

    /** The names of every table with this prefix (ListTables, all pages). */
    public CompletableFuture<List<String>> list() {
        return retry.run("list tables", calls::list);
    }

    /** The table as DescribeTable sees it, or empty when it does not exist. */
    public CompletableFuture<Optional<ManagedTable>> describe(String tableName) {
        return retry.run("describe " + tableName, () -> calls.describe(tableName));
    }

    /**
     * The tier whose capacity the table has, the lowest in the life cycle when several tiers
     * share it, else {@code current} for a capacity an open table may have ({@link
     * CapacitySizing#isOpen}); empty when it matches none (changed by hand).
     */
    public Optional<CapacityTier> tierOf(ManagedTable table) {
        return capacityChanges.tierOf(table);
    }

    /** Stops retries and timers; pending futures may never complete. Closes the client if it owns it. */
    @Override
    public void close() {
        scheduler.shutdownNow();
        calls.close();
        capacityChanges.close();
        if (ownsClient) {
            client.close();
        }
    }
}
