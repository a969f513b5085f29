package io.periodtables.query;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.dynamodb.LatestTable;
import io.periodtables.core.period.TableNaming;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.Preconditions;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * Reads a device's readings back from period-tables' DynamoDB tables, as the configuration
 * that wrote them names and shards them (the same {@code tables.prefix}, {@code tables.period},
 * {@code tables.zone}; {@code tables.shards} only for tables without a shard-count tag):
 *
 * <ul>
 *   <li>{@link #range}: the readings of {@code [from, to)} in time order, from every period
 *       table the range touches, every shard of each, and the late tables that can hold
 *       readings of the range (write months from {@code from - input.max-future} to now); tables are
 *       queried in parallel, every page is followed, and a period table that does not exist
 *       is reported in the {@link QueryReport}, not an error;
 *   <li>{@link #latest}: the newest {@code n} readings, walking the periods backwards;
 *   <li>{@link #latestOf} and {@link #latestOfFleet}: the newest reading of devices, or of every
 *       device, from the latest table ({@code <prefix>_latest});
 *   <li>{@link #rollups}: a device's rollup buckets of one grain, from the rollups tables.
 * </ul>
 *
 * <p>With {@link #withArchive} a table that no longer exists is read from the archive. One reading is returned once
 * even when a replay stored it in a period table and in a
 * late table (same {@code sk}). Reads are eventually consistent. Not thread-safe: one query
 * at a time per instance.
 */
@PublicEvolving
public final class ReadingsQuery implements AutoCloseable {

    private final PeriodTablesConfig config;
    private final DynamoDbAsyncClient client;
    private final boolean ownsClient;
    private final Clock clock;
    private final RangeReader ranges;
    private final LatestReader latest;
    private final LatestTableReader latestTable;
    private final RollupReader rollups;
    private ArchiveRanges archive;

    /** A query with a client of its own, from {@link DynamoDbClients}; {@link #close()} closes it. */
    public static ReadingsQuery create(PeriodTablesConfig config, QuerySettings settings) {
        int connections = settings.tablesInFlight() * Math.max(4, config.get(TableKeys.TABLES_SHARDS));
        return new ReadingsQuery(
                config, DynamoDbClients.of(config).newAsyncClient(connections), true, settings, Clock.systemUTC());
    }

    /** A query on a client the caller keeps and closes; {@code clock} says what "now" is. */
    public ReadingsQuery(PeriodTablesConfig config, DynamoDbAsyncClient client, QuerySettings settings, Clock clock) {
        this(config, client, false, settings, clock);
    }

    private ReadingsQuery(
            PeriodTablesConfig config,
            DynamoDbAsyncClient client,
            boolean ownsClient,
            QuerySettings settings,
            Clock clock) {
        this.config = Preconditions.checkNotNull(config, "config");
        this.client = Preconditions.checkNotNull(client, "client");
        this.ownsClient = ownsClient;
        this.clock = Preconditions.checkNotNull(clock, "clock");
        TableNaming naming = config.naming();
        Duration maxFuture = config.get(ConfigKeys.INPUT_MAX_FUTURE);
        DynamoDbRetry retry = new DynamoDbRetry(settings.maxAttempts());
        TableShards shards = new TableShards(client, retry, config.get(TableKeys.TABLES_SHARDS));
        TableReader reader = new TableReader(client, retry, shards, config.ttl().isPresent(), settings.pageSize());
        this.ranges = new RangeReader(naming, reader, maxFuture, settings.tablesInFlight());
        this.latest =
                new LatestReader(naming, new TableCatalog(client, retry, naming), reader, settings.tablesInFlight());
        this.latestTable =
                new LatestTableReader(client, retry, new LatestTable(client, naming), latest, settings.pageSize());
        this.rollups = new RollupReader(client, retry, naming, settings.pageSize(), settings.tablesInFlight());
    }

    /**
     * Reads the tables that no longer exist from the archive under {@code archivePath} (the job's
     * {@code archive.path}, docs/archive.md): {@link #range} then returns the readings of deleted
     * periods too, in time order with the tables', each ({@code pk}, {@code sk}) once.
     */
    public ReadingsQuery withArchive(String archivePath) {
        Preconditions.checkArgument(archivePath != null && !archivePath.isEmpty(), "--archive must be a path or URI");
        this.archive =
                new ArchiveRanges(archivePath, config.naming(), config.ttl().isPresent());
        return this;
    }

    /**
     * Hands the device's readings of {@code [from, to)} to {@code out}, oldest first, on the
     * calling thread, and reports what was read.
     *
     * @throws QueryFailedException when DynamoDB refuses or keeps failing a request
     */
    public QueryReport range(String deviceId, Instant from, Instant to, Consumer<StoredReading> out) {
        checkDevice(deviceId);
        Preconditions.checkArgument(from.isBefore(to), "--from (%s) must be before --to (%s)", from, to);
        return ranges.read(deviceId, from, to, clock.instant(), archive, out);
    }

    /** The device's readings of {@code [from, to)}, oldest first, with the report. */
    public QueryResult range(String deviceId, Instant from, Instant to) {
        List<StoredReading> readings = new ArrayList<>();
        QueryReport report = range(deviceId, from, to, readings::add);
        return new QueryResult(readings, report);
    }

    /**
     * The device's newest {@code n} readings, newest first.
     *
     * @throws QueryFailedException when DynamoDB refuses or keeps failing a request
     */
    public QueryResult latest(String deviceId, int n) {
        checkDevice(deviceId);
        Preconditions.checkArgument(n >= 1 && n <= 10_000, "--n must be 1-10000, was %s", n);
        return latest.read(deviceId, n);
    }

    /**
     * The newest reading of each of {@code deviceIds} (in their order; a device without one is
     * listed as not found), read consistently from the latest table; when that table does not
     * exist, from the period and late tables as {@link #latest} finds it.
     *
     * @throws QueryFailedException when DynamoDB refuses or keeps failing a request
     */
    public LatestResult latestOf(List<String> deviceIds) {
        Preconditions.checkArgument(!deviceIds.isEmpty(), "give at least one --device");
        deviceIds.forEach(ReadingsQuery::checkDevice);
        return latestTable.of(List.copyOf(deviceIds));
    }

    /**
     * Every device's newest reading, sorted by device, from the latest table (a {@code Scan},
     * eventually consistent, every page followed).
     *
     * @throws NotStoredException when the latest table does not exist
     * @throws QueryFailedException when DynamoDB refuses or keeps failing a request
     */
    public LatestResult latestOfFleet() {
        return latestTable.fleet();
    }

    /**
     * The device's rollup buckets of {@code grain} that start in {@code [from, to)}, oldest first,
     * from the rollups tables of the periods the range overlaps. Reads are eventually consistent.
     *
     * @throws NotStoredException when none of those rollups tables exists, or they hold other
     *     grains but not {@code grain} (the message names them)
     * @throws QueryFailedException when DynamoDB refuses or keeps failing a request
     */
    public RollupResult rollups(String deviceId, Instant from, Instant to, Duration grain) {
        checkDevice(deviceId);
        Preconditions.checkArgument(from.isBefore(to), "--from (%s) must be before --to (%s)", from, to);
        Preconditions.checkArgument(
                !grain.isNegative() && !grain.isZero(), "--every must be a positive duration, was %s", grain);
        return rollups.read(deviceId, from, to, grain);
    }

    /** The configuration this query reads with. */
    public PeriodTablesConfig config() {
        return config;
    }

    @Override
    public void close() {
        if (ownsClient) {
            client.close();
        }
    }

    private static void checkDevice(String deviceId) {
        Preconditions.checkArgument(deviceId != null && !deviceId.isEmpty(), "--device must be a non-empty device id");
    }
}
