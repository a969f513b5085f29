package io.periodtables.rotation;

import io.periodtables.conf.Capacity;
import io.periodtables.conf.CapacityTier;
import io.periodtables.conf.ConfigKeys;
import io.periodtables.conf.DynamoDbClients;
import io.periodtables.conf.Period;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.conf.TableNaming;

import org.apache.flink.annotation.PublicEvolving;

import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

import java.time.Clock;
import java.time.Instant;
import java.time.YearMonth;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The life cycle of period-tables' DynamoDB tables, as asynchronous control-plane operations:
 * {@link #ensure} a table (create, wait for ACTIVE, TTL), {@link #setTier} to dial a closed
 * table down, {@link #applyRetention} to delete expired ones. Plain Java, usable outside
 * Flink; no method blocks: each returns a future, and retries run on the manager's own
 * scheduler, so a caller on a Flink task thread is never held up.
 *
 * <p>Every operation is idempotent and safe to repeat after a crash or a redeploy. Concurrent
 * ensures of one table share one operation; concurrent tier changes of one table merge into
 * one (the latest target wins). Tables are created with the {@code current} tier's capacity
 * (late and rejected tables on-demand), tagged with {@value TableNaming#MANAGED_BY_TAG}={@value
 * TableNaming#MANAGED_BY_VALUE} and their period, shard count and kind; retention only ever
 * deletes tables that carry that tag.
 */
@PublicEvolving
public final class TableManager implements AutoCloseable {
    /** Tag keys written on every created table, besides {@link TableNaming#MANAGED_BY_TAG}. */
    public static final String TAG_KIND = "period-tables.kind";
    public static final String TAG_PERIOD_START = "period-tables.period-start";
    public static final String TAG_PERIOD_END = "period-tables.period-end";
    public static final String TAG_LATE_MONTH = "period-tables.late-month";

    private final PeriodTablesConfig config;
    private final TableNaming naming;
    private final DynamoDbAsyncClient client;
    private final boolean ownsClient;
    private final ScheduledExecutorService scheduler;
    private final TableManagerStats stats = new TableManagerStats();
    private final TableWaits waits;
    private final TableCreator creator;
    private final TierChanger tiers;
    private final RetentionSweeper retention;
    private final Map<String, CompletableFuture<EnsuredTable>> ensuring = new ConcurrentHashMap<>();

    /** A manager with a client of its own, built by {@code clients}; {@link #close()} closes it. */
    public static TableManager create(PeriodTablesConfig config, DynamoDbClients clients, TableManagerSettings settings) {
        return new TableManager(config, clients.newAsyncClient(settings.maxConcurrency()), true, settings, Clock.systemUTC());
    }

    /** A manager with default settings and a client from {@link DynamoDbClients#of}. */
    public static TableManager create(PeriodTablesConfig config) {
        return create(config, DynamoDbClients.of(config), TableManagerSettings.defaults());
    }

    /** A manager on a client that the caller keeps and closes. */
    public TableManager(PeriodTablesConfig config, DynamoDbAsyncClient client, TableManagerSettings settings, Clock clock) {
        this(config, client, false, settings, clock);
    }

    private TableManager(PeriodTablesConfig config, DynamoDbAsyncClient client, boolean ownsClient,
            TableManagerSettings settings, Clock clock) {
        this.config = config;
        this.naming = config.naming();
        this.client = client;
        this.ownsClient = ownsClient;
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = Executors.defaultThreadFactory().newThread(r);
            t.setName("period-tables-table-manager");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        this.scheduler = executor;
        RetryLoop retry = new RetryLoop(scheduler, settings, stats);
        this.waits = new TableWaits(client, scheduler, settings);
        this.creator = new TableCreator(config, client, waits, retry, stats);
        this.tiers = new TierChanger(config, client, waits, retry, settings, stats, clock);
        this.retention = new RetentionSweeper(config, client, waits, retry, stats, clock);
    }

    /** Ensures the table of {@code period} exists and is ACTIVE, created with the {@code current} tier. */
    public CompletableFuture<EnsuredTable> ensure(Period period) {
        Map<String, String> tags = baseTags("period");
        tags.put(TAG_PERIOD_START, period.start().toString());
        tags.put(TAG_PERIOD_END, period.end().toString());
        return ensure(new TableSpec(naming.periodTable(period), config.effectiveCapacity(CapacityTier.CURRENT), tags,
                config.ttl().isPresent()));
    }

    /** Ensures the late table of a UTC write month (on-demand, never tiered). */
    public CompletableFuture<EnsuredTable> ensureLateTable(YearMonth month) {
        Map<String, String> tags = baseTags("late");
        tags.put(TAG_LATE_MONTH, month.toString());
        Instant inMonth = month.atDay(1).atStartOfDay(java.time.ZoneOffset.UTC).toInstant();
        return ensure(new TableSpec(naming.lateTable(inMonth), Capacity.ON_DEMAND, tags, config.ttl().isPresent()));
    }

    /** Ensures the rejected table (on-demand, never tiered, no TTL). */
    public CompletableFuture<EnsuredTable> ensureRejectedTable() {
        return ensure(new TableSpec(naming.rejectedTable(), Capacity.ON_DEMAND, baseTags("rejected"), false));
    }

    /**
     * Ensures a table by its name: a period, late or rejected table of this configuration's
     * prefix. Any other name fails the future with {@link IllegalArgumentException}. This is
     * what the sink's "missing table" hook calls.
     */
    public CompletableFuture<EnsuredTable> ensureTable(String tableName) {
        Optional<TableNaming.TableRef> ref = naming.parse(tableName);
        if (ref.isEmpty()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("'" + tableName
                    + "' is not a table name of prefix '" + naming.prefix() + "' and period " + naming.calendar().length()));
        }
        switch (ref.get().kind()) {
            case PERIOD:
                return ensure(ref.get().period());
            case LATE:
                return ensureLateTable(ref.get().lateMonth());
            default:
                return ensureRejectedTable();
        }
    }

    /**
     * Moves a table to {@code tier}'s capacity ({@link PeriodTablesConfig#effectiveCapacity}),
     * or reports that it is there already or missing. Waits for the decrease quota or for a
     * table that is busy, on its own schedule.
     */
    public CompletableFuture<TierChange> setTier(String tableName, CapacityTier tier) {
        return tiers.setTier(tableName, tier);
    }

    /** Deletes our tagged tables whose period ended more than {@code tables.retention} before {@code now}. */
    public CompletableFuture<RetentionReport> applyRetention(Instant now) {
        return retention.apply(now);
    }

    /** The table as DescribeTable sees it, or empty when it does not exist. */
    public CompletableFuture<Optional<TableInfo>> describe(String tableName) {
        return waits.describe(tableName).thenApply(found -> found.map(TableInfo::of));
    }

    /**
     * The tier whose capacity the table has, the lowest in the life cycle when several tiers
     * share it; empty when its capacity matches no tier (changed by hand).
     */
    public Optional<CapacityTier> tierOf(TableInfo table) {
        for (int i = CapacityTier.values().length - 1; i >= 0; i--) {
            CapacityTier tier = CapacityTier.values()[i];
            if (config.effectiveCapacity(tier).equals(table.capacity())) {
                return Optional.of(tier);
            }
        }
        return Optional.empty();
    }

    public TableManagerStats stats() {
        return stats;
    }

    /** Stops retries and timers; pending futures may never complete. Closes the client if it owns it. */
    @Override
    public void close() {
        scheduler.shutdownNow();
        waits.close();
        if (ownsClient) {
            client.close();
        }
    }

    private CompletableFuture<EnsuredTable> ensure(TableSpec spec) {
        CompletableFuture<EnsuredTable> mine = new CompletableFuture<>();
        CompletableFuture<EnsuredTable> running = ensuring.putIfAbsent(spec.name(), mine);
        if (running != null) {
            return running.copy();
        }
        creator.ensure(spec).whenComplete((table, error) -> {
            ensuring.remove(spec.name(), mine);
            if (error != null) {
                stats.failures.incrementAndGet();
                mine.completeExceptionally(ControlPlaneErrors.unwrap(error));
            } else {
                mine.complete(table);
            }
        });
        return mine.copy();
    }

    private Map<String, String> baseTags(String kind) {
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put(TableNaming.MANAGED_BY_TAG, TableNaming.MANAGED_BY_VALUE);
        tags.put(TAG_KIND, kind);
        tags.put(TableNaming.SHARDS_TAG, String.valueOf(config.get(ConfigKeys.TABLES_SHARDS)));
        return tags;
    }
}
