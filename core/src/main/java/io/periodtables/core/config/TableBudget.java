package io.periodtables.core.config;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacityTier;
import java.time.Duration;
import java.util.Optional;
import org.apache.flink.annotation.PublicEvolving;

/**
 * How many tables, and how much provisioned write capacity, a configuration keeps at most,
 * checked against the account's quotas ({@code limits.max-tables}, default 2,500 tables;
 * {@code limits.max-write-capacity}, default 80,000 WCU) when the job starts. With
 * {@code tables.retention} the job keeps its period tables ({@code retention ÷ period}, plus the
 * current and the next one), the late tables of the months the retention covers plus this
 * month's, the rejected table and the writers table; at most three of them take writes at the {@code current}
 * tier at once (two when {@code rotation.lead + window.allowed-lateness} fits in a period), one
 * is {@code previous}, the rest {@code older}. Without retention the count grows by one table
 * per period for ever: {@link #warning()} says so.
 */
@PublicEvolving
public final class TableBudget {
    private static final Duration SHORTEST_MONTH = Duration.ofDays(28);

    private final PeriodTablesConfig config;
    private final Duration period;

    private TableBudget(PeriodTablesConfig config) {
        this.config = config;
        this.period = config.get(TableKeys.TABLES_PERIOD).minimumDuration();
    }

    public static TableBudget of(PeriodTablesConfig config) {
        return new TableBudget(config);
    }

    /** Period tables kept with {@code retention}: those that ended within it, the current and the next. */
    long periodTables(Duration retention) {
        return ceilDiv(retention, period) + 2;
    }

    /**
     * Tables kept with {@code retention}: period tables (twice with rollups: each period has a
     * rollups table), late tables, the rejected and the writers table, and the latest table.
     */
    public long tables(Duration retention) {
        long perPeriod = config.find(ConfigKeys.ROLLUPS_EVERY).isPresent() ? 2 : 1;
        long latest = config.get(ConfigKeys.LATEST_ENABLED) ? 1 : 0;
        return perPeriod * periodTables(retention) + ceilDiv(retention, SHORTEST_MONTH) + 1 + 1 + 1 + latest;
    }

    /** Provisioned WCU with {@code retention}: the tiers' write units over the period tables kept. */
    public long writeCapacity(Duration retention) {
        long open = config.get(ConfigKeys.ROTATION_LEAD)
                                .plus(config.get(ConfigKeys.ALLOWED_LATENESS))
                                .compareTo(period)
                        > 0
                ? 3
                : 2;
        long older = Math.max(0, periodTables(retention) - open - 1);
        return open * writeUnits(CapacityTier.CURRENT)
                + writeUnits(CapacityTier.PREVIOUS)
                + older * writeUnits(CapacityTier.OLDER);
    }

    /** Throws a one-line {@link ConfigException} naming {@code tables.retention} when a quota would be exceeded. */
    public void check() {
        Optional<Duration> retention = config.find(TableKeys.TABLES_RETENTION);
        if (retention.isEmpty()) {
            return;
        }
        long tables = tables(retention.get());
        int maxTables = config.get(ConfigKeys.LIMITS_MAX_TABLES);
        if (tables > maxTables) {
            throw new ConfigException(
                    TableKeys.TABLES_RETENTION.name(),
                    String.format(
                            "Invalid configuration: tables.retention = '%s' with tables.period = '%s' keeps up to %,d"
                                    + " tables, above limits.max-tables = %d: shorten tables.retention, lengthen"
                                    + " tables.period,"
                                    + " or raise limits.max-tables to your account's DynamoDB table quota",
                            text(TableKeys.TABLES_RETENTION), text(TableKeys.TABLES_PERIOD), tables, maxTables));
        }
        long wcu = writeCapacity(retention.get());
        long maxWcu = config.get(ConfigKeys.LIMITS_MAX_WRITE_CAPACITY);
        if (wcu > maxWcu) {
            throw new ConfigException(
                    TableKeys.TABLES_RETENTION.name(),
                    String.format(
                            "Invalid configuration: tables.retention = '%s' with tables.period = '%s' and"
                                    + " tables.capacity.* provisions up to %,d WCU, above limits.max-write-capacity ="
                                    + " %d: shorten tables.retention, lower tables.capacity.current/older, or raise"
                                    + " limits.max-write-capacity to your account's quota",
                            text(TableKeys.TABLES_RETENTION), text(TableKeys.TABLES_PERIOD), wcu, maxWcu));
        }
    }

    /** Without retention: what to log at start (the table count is unbounded). */
    public Optional<String> warning() {
        if (config.find(TableKeys.TABLES_RETENTION).isPresent()) {
            return Optional.empty();
        }
        return Optional.of(String.format(
                "tables.retention is not set: the job keeps one more table every tables.period (%s)"
                        + " for ever and cannot create tables once the account reaches its DynamoDB table quota"
                        + " (limits.max-tables = %d); watch the rotation's managedTables and provisionedWriteCapacity"
                        + " gauges (docs/operations.md, Metrics and alarms)",
                text(TableKeys.TABLES_PERIOD), config.get(ConfigKeys.LIMITS_MAX_TABLES)));
    }

    private long writeUnits(CapacityTier tier) {
        Capacity capacity = config.effectiveCapacity(tier);
        return capacity.onDemand() ? 0 : capacity.writeUnits();
    }

    private String text(ConfigKey<?> key) {
        return config.asText().get(key.name());
    }

    private static long ceilDiv(Duration a, Duration b) {
        return (a.toMillis() + b.toMillis() - 1) / b.toMillis();
    }
}
