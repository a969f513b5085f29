package io.periodtables.core.config;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.item.Rollups;
import java.time.Duration;
import java.util.List;

/**
 * The rules between keys, checked once every value has parsed (each key's own rule is its {@link
 * ConfigKey}'s): a source's required companions, durations shorter than the period, what the
 * archive and rollups ask of the late policy, capacity bounds, the table name, and the start-up
 * quota checks ({@link TableBudget}, {@link TableThroughputQuota}). The first rule that fails
 * stops the job with a {@link ConfigException} naming the key.
 */
final class ConfigRules {

    /**
     * Twice the Kinesis source's shard discovery interval (connector 4.3.0's default, 10 s): a shard
     * read to its end before its children were listed holds its subtask's watermark until they
     * come, one discovery later at most, or until {@code watermark.idleness}, whichever is first.
     * Measured with {@code KinesisReshardITCase}'s catch-up across a split at this floor lifted: at
     * {@code PT5S} all 24 of the children's readings went to the late table, at {@code PT12S} none;
     * twice the interval leaves a loaded machine's coordinator round trips room.
     */
    private static final Duration MIN_KINESIS_IDLENESS = Duration.ofSeconds(20);

    private ConfigRules() {}

    /** Throws the first rule's {@link ConfigException} that {@code c} breaks. */
    static void check(PeriodTablesConfig c) {
        if (c.get(ConfigKeys.SOURCE) == ConfigKeys.SourceKind.KINESIS && c.get(ConfigKeys.KINESIS_STREAM_ARN) == null) {
            throw new ConfigException(
                    ConfigKeys.KINESIS_STREAM_ARN.name(),
                    "Missing configuration: kinesis.stream-arn is required when source = kinesis");
        }
        if (c.get(ConfigKeys.KINESIS_INITIAL_POSITION) == ConfigKeys.InitialPosition.AT_TIMESTAMP
                && c.get(ConfigKeys.KINESIS_INITIAL_TIMESTAMP) == null) {
            throw new ConfigException(
                    ConfigKeys.KINESIS_INITIAL_TIMESTAMP.name(),
                    "Missing configuration: kinesis.initial-timestamp is required when kinesis.initial-position ="
                            + " AT_TIMESTAMP");
        }
        if (c.get(ConfigKeys.SOURCE) == ConfigKeys.SourceKind.KINESIS
                && c.get(ConfigKeys.IDLENESS).compareTo(MIN_KINESIS_IDLENESS) < 0) {
            throw ConfigException.invalid(
                    ConfigKeys.IDLENESS.name(),
                    c.asText().get(ConfigKeys.IDLENESS.name()),
                    "must be at least " + MIN_KINESIS_IDLENESS + " when source = kinesis: the source lists a"
                            + " closed shard's children up to 10 s (its shard discovery interval) after the shard"
                            + " was read to its end, which holds its subtask's watermark for this long only;"
                            + " shorter, a lagging parent's children's readings go late");
        }
        Duration period = c.get(TableKeys.TABLES_PERIOD).minimumDuration();
        mustBeShorterThanPeriod(c, ConfigKeys.ROTATION_LEAD, period);
        mustBeShorterThanPeriod(c, ConfigKeys.ALLOWED_LATENESS, period);
        c.find(TableKeys.TABLES_RETENTION).ifPresent(retention -> {
            Duration grace = c.get(ConfigKeys.ALLOWED_LATENESS);
            if (retention.compareTo(grace) <= 0) {
                throw ConfigException.invalid(
                        TableKeys.TABLES_RETENTION.name(),
                        c.asText().get(TableKeys.TABLES_RETENTION.name()),
                        "must be longer than window.allowed-lateness (" + grace
                                + ") so no table is deleted while it takes writes");
            }
        });
        if (c.find(ConfigKeys.ARCHIVE_PATH).isPresent()
                && c.get(ConfigKeys.LATE_POLICY) == ConfigKeys.LatePolicy.PERIOD_TABLE) {
            throw ConfigException.invalid(
                    ConfigKeys.LATE_POLICY.name(),
                    c.asText().get(ConfigKeys.LATE_POLICY.name()),
                    "must be late-table when archive.path is set: a late reading written to its period table "
                            + "would change a period whose archive is already complete");
        }
        if (c.find(ConfigKeys.ROLLUPS_EVERY).isPresent()
                && c.get(ConfigKeys.LATE_POLICY) == ConfigKeys.LatePolicy.PERIOD_TABLE) {
            throw ConfigException.invalid(
                    ConfigKeys.LATE_POLICY.name(),
                    c.asText().get(ConfigKeys.LATE_POLICY.name()),
                    "must be late-table when rollups.every is set: a late reading written to its period table "
                            + "would be in the table but in no rollup, whose period has closed");
        }
        for (Duration grain : c.find(ConfigKeys.ROLLUPS_EVERY).orElse(List.of())) {
            Rollups.misfit(grain, c.get(TableKeys.TABLES_PERIOD)).ifPresent(why -> {
                throw ConfigException.invalid(
                        ConfigKeys.ROLLUPS_EVERY.name(), c.asText().get(ConfigKeys.ROLLUPS_EVERY.name()), why);
            });
        }
        Capacity min = c.get(TableKeys.CAPACITY_CURRENT_MIN);
        Capacity max = c.get(TableKeys.CAPACITY_CURRENT_MAX);
        if (min.writeUnits() > max.writeUnits() || min.readUnits() > max.readUnits()) {
            throw ConfigException.invalid(
                    TableKeys.CAPACITY_CURRENT_MAX.name(),
                    max.toString(),
                    "must be at least tables.capacity.current.min (" + min + ") in both units");
        }
        if (c.find(TableKeys.CAPACITY_AUTOSCALING).orElse(false)
                && c.get(TableKeys.TABLES_BILLING) == ConfigKeys.Billing.PAY_PER_REQUEST) {
            throw ConfigException.invalid(
                    TableKeys.CAPACITY_AUTOSCALING.name(),
                    "true",
                    "must be false when tables.billing is PAY_PER_REQUEST: on-demand tables have no capacity to scale");
        }
        // Validates prefix and zone together (a prefix alone is checked by its key).
        c.naming();
        TableBudget.of(c).check();
        TableThroughputQuota.of(c).check();
    }

    private static void mustBeShorterThanPeriod(PeriodTablesConfig c, ConfigKey<Duration> key, Duration period) {
        if (c.get(key).compareTo(period) >= 0) {
            throw ConfigException.invalid(
                    key.name(),
                    c.asText().get(key.name()),
                    "must be shorter than tables.period (" + c.get(TableKeys.TABLES_PERIOD) + ")");
        }
    }
}
