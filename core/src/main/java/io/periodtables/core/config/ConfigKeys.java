package io.periodtables.core.config;

import io.periodtables.core.item.ArchiveColumn;
import io.periodtables.core.item.Rollups;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Every configuration key of period-tables, with default and meaning (those of the tables
 * themselves, {@code tables.*}, are defined in {@link TableKeys}): the single source from which
 * docs/configuration.md's table is generated and against which unknown keys are refused.
 */
@PublicEvolving
public final class ConfigKeys {

    /** Where readings come from. */
    public enum SourceKind {
        GENERATOR,
        KINESIS
    }

    /** Where a Kinesis source starts on a fresh start (without state). */
    public enum InitialPosition {
        LATEST,
        TRIM_HORIZON,
        AT_TIMESTAMP
    }

    /** Billing mode of created tables. */
    public enum Billing {
        PROVISIONED,
        PAY_PER_REQUEST
    }

    /** DynamoDB table class of closed period tables. */
    public enum TableClass {
        STANDARD,
        STANDARD_INFREQUENT_ACCESS
    }

    /** Where readings go that arrive after their period's grace has ended. */
    public enum LatePolicy {
        LATE_TABLE,
        PERIOD_TABLE
    }

    private static final Map<String, ConfigKey<?>> ALL = new LinkedHashMap<>();

    public static final ConfigKey<SourceKind> SOURCE =
            key("source", "generator", "`generator` or `kinesis`", s -> ConfigValues.enumValue(SourceKind.class, s));
    public static final ConfigKey<String> KINESIS_STREAM_ARN =
            key("kinesis.stream-arn", null, "stream ARN; required for `source=kinesis`", ConfigValues::streamArn);
    public static final ConfigKey<InitialPosition> KINESIS_INITIAL_POSITION = key(
            "kinesis.initial-position",
            "LATEST",
            "`LATEST`, `TRIM_HORIZON` or `AT_TIMESTAMP` (+ `kinesis.initial-timestamp`)",
            s -> ConfigValues.enumValue(InitialPosition.class, s));
    public static final ConfigKey<Instant> KINESIS_INITIAL_TIMESTAMP =
            key("kinesis.initial-timestamp", null, "ISO-8601 instant for `AT_TIMESTAMP`", ConfigValues::instant);
    public static final ConfigKey<String> AWS_REGION =
            key("aws.region", "us-east-1", "region for all AWS clients", ConfigValues::region);
    public static final ConfigKey<URI> AWS_ENDPOINT =
            key("aws.endpoint", null, "endpoint override for all AWS clients (emulators)", ConfigValues::endpoint);
    public static final ConfigKey<URI> DYNAMODB_ENDPOINT =
            key("dynamodb.endpoint", null, "DynamoDB endpoint override", ConfigValues::endpoint);
    public static final ConfigKey<URI> KINESIS_ENDPOINT =
            key("kinesis.endpoint", null, "Kinesis endpoint override", ConfigValues::endpoint);
    public static final ConfigKey<Boolean> DYNAMODB_EMBEDDED = key(
            "dynamodb.embedded",
            "true locally, false on MSF",
            "local run: start the embedded DynamoDB emulator (dynalite) when no endpoint is set",
            ConfigValues::bool);
    public static final ConfigKey<Set<String>> DYNAMODB_LIMITS = key(
            "dynamodb.limits",
            "all",
            "local run: DynamoDB limits the embedded emulator enforces: `all` (as in every test), `off`, or"
                    + " a list of `throughput,on-demand,partitions,decreases,switches,tables`",
            ConfigValues::dynamoDbLimits);

    static {
        // the tables.* keys come here in documentation order
        TableKeys.all().forEach(key -> ALL.put(key.name(), key));
    }

    public static final ConfigKey<Integer> LIMITS_MAX_TABLES = key(
            "limits.max-tables",
            "2500",
            "the account's DynamoDB table quota in the region: a configuration that"
                    + " keeps more tables stops at start",
            s -> ConfigValues.intInRange(s, 1, 1_000_000));
    public static final ConfigKey<Long> LIMITS_MAX_WRITE_CAPACITY = key(
            "limits.max-write-capacity",
            "80000",
            "the account's provisioned write capacity quota (WCU) in the region:"
                    + " a configuration that provisions more stops at start",
            ConfigValues::positiveLong);
    public static final ConfigKey<Long> LIMITS_MAX_TABLE_UNITS = key(
            "limits.max-table-units",
            "40000",
            "the account's per-table throughput quota in the region (read and write units each): a configuration"
                    + " that asks a table for more (`latest.warm-writes`, `tables.on-demand.max`,"
                    + " `tables.warm-throughput.max`, a provisioned `tables.capacity.*`) stops at start",
            ConfigValues::positiveLong);
    public static final ConfigKey<Duration> ROTATION_CLOSED_RAISE_AFTER = key(
            "rotation.closed-raise-after",
            "PT1M",
            "a table the sink writes (closed, or open and sized below `tables.capacity.current`) is raised to"
                    + " `tables.capacity.current` only after throttling it this long on end",
            ConfigValues::positiveDuration);
    public static final ConfigKey<Duration> ROTATION_LOWERING_STALL_AFTER = key(
            "rotation.lowering-stall-after",
            "PT30M",
            "a closed table that waits this long (wall clock) for the sink writers' written-through"
                    + " report without it moving logs one ERROR and sets the gauge loweringStalled",
            ConfigValues::positiveDuration);
    public static final ConfigKey<Duration> ROTATION_LEAD = key(
            "rotation.lead",
            "PT15M",
            "prebuild the next table this long before the rollover (default: a quarter of `tables.period` if less)",
            ConfigValues::positiveDuration);
    public static final ConfigKey<Duration> ALLOWED_LATENESS = key(
            "window.allowed-lateness",
            "PT5M",
            "grace after the rollover for late writes to the old table (default: a quarter of `tables.period` if less)",
            ConfigValues::nonNegativeDuration);
    public static final ConfigKey<Integer> WINDOW_FIRE_COUNT = key(
            "window.fire-count",
            "100",
            "emit a device's buffered readings after this many",
            s -> ConfigValues.intInRange(s, 1, 100_000));
    public static final ConfigKey<Duration> WINDOW_FIRE_DELAY = key(
            "window.fire-delay",
            "PT0.2S",
            "emit a device's buffered readings at most this long after the first",
            ConfigValues::positiveDuration);
    public static final ConfigKey<Duration> OUT_OF_ORDERNESS = key(
            "watermark.out-of-orderness",
            "PT5S",
            "bounded out-of-orderness of event time",
            ConfigValues::nonNegativeDuration);
    public static final ConfigKey<Duration> IDLENESS = key(
            "watermark.idleness",
            "PT1M",
            "a source split without data this long stops holding the watermark; at least `PT20S` with the Kinesis"
                    + " source (a closed shard's children are listed up to 10 s after it ends)",
            ConfigValues::positiveDuration);
    public static final ConfigKey<LatePolicy> LATE_POLICY = key(
            "late.policy",
            "late-table",
            "`late-table` or `period-table`",
            s -> ConfigValues.enumValue(LatePolicy.class, s));
    public static final ConfigKey<String> ARCHIVE_PATH = key(
            "archive.path",
            null,
            "also write every stored reading as Parquet under this Flink filesystem URI "
                    + "(`s3://bucket/prefix`, `file:///path`), see docs/archive.md",
            ConfigValues::archivePath);
    public static final ConfigKey<List<ArchiveColumn>> ARCHIVE_COLUMNS = key(
            "archive.columns",
            null,
            "payload fields archived in typed Parquet columns: `name:type,…`, types `double`, `bigint`, "
                    + "`string`, `boolean` (e.g. `temperature:double,status:string`)",
            ArchiveColumn::parseList);
    public static final ConfigKey<List<Duration>> ROLLUPS_EVERY = key(
            "rollups.every",
            null,
            "rollup grains, e.g. `PT1M,PT1H`: per device and bucket count, min, max, sum, first, last of each "
                    + "numeric field, in the period's rollups table (off unless set)",
            Rollups::parseGrains);
    public static final ConfigKey<List<String>> ROLLUPS_FIELDS = key(
            "rollups.fields",
            null,
            "payload fields rolled up, comma-separated (default: every numeric top-level field)",
            Rollups::parseFields);
    public static final ConfigKey<Duration> ROLLUPS_EXACT_WITHIN = key(
            "rollups.exact-within",
            "PT1H",
            "rollups count an input duplicate once when its event time is within this of the device's newest"
                    + " reading of the same period; an older one is counted again (`rollupUnchecked`). Bounds the"
                    + " sort keys kept per device to this much event time",
            ConfigValues::positiveDuration);
    public static final ConfigKey<Boolean> LATEST_ENABLED =
            key("latest.enabled", "true", "keep each device's newest reading in `<prefix>_latest`", ConfigValues::bool);
    public static final ConfigKey<Duration> LATEST_INTERVAL = key(
            "latest.interval",
            "PT1M",
            "how often a device's latest item may be written: its newest reading is put at most once per interval"
                    + " and at every checkpoint, so a reading is in the latest table at most an interval (and a second)"
                    + " after the period windows emit it. `PT1S` to `PT1H` in whole seconds; each put is a write unit"
                    + " (docs/operations.md, The latest table's freshness)",
            ConfigValues::latestInterval);
    public static final ConfigKey<Integer> LATEST_WARM_WRITES = key(
            "latest.warm-writes",
            null,
            "write units per second the latest table is prewarmed to (`WarmThroughput`; an existing one is raised):"
                    + " about the devices whose reading changes in a second. Unset: created cold, 4,000 writes/s until"
                    + " DynamoDB scales it. At most `limits.max-table-units`",
            s -> ConfigValues.intInRange(s, 1, Integer.MAX_VALUE));
    public static final ConfigKey<String> INPUT_DEVICE_FIELD =
            key("input.device-field", "deviceId", "JSON field holding the device id", ConfigValues::nonEmpty);
    public static final ConfigKey<String> INPUT_TIMESTAMP_FIELD =
            key("input.timestamp-field", "timestamp", "JSON field holding the event time", ConfigValues::nonEmpty);
    public static final ConfigKey<Duration> INPUT_MAX_FUTURE = key(
            "input.max-future",
            "PT1H",
            "readings further ahead of the wall clock are rejected",
            ConfigValues::positiveDuration);
    public static final ConfigKey<Integer> SINK_MAX_ATTEMPTS = key(
            "sink.max-attempts",
            "100",
            "attempts per item before the job fails loudly",
            s -> ConfigValues.intInRange(s, 1, 1_000_000));
    public static final ConfigKey<Integer> SINK_MAX_IN_FLIGHT = key(
            "sink.max-in-flight",
            "16",
            "concurrent BatchWriteItem requests per sink subtask",
            s -> ConfigValues.intInRange(s, 1, 1000));
    public static final ConfigKey<Integer> SINK_MAX_BUFFERED = key(
            "sink.max-buffered",
            "10000",
            "items buffered per sink subtask before backpressure",
            s -> ConfigValues.intInRange(s, 25, 10_000_000));
    public static final ConfigKey<Duration> SINK_REQUEST_TIMEOUT = key(
            "sink.request-timeout",
            "PT10S",
            "a DynamoDB request attempt fails after this long without an answer"
                    + " (the HTTP read and write timeouts)",
            ConfigValues::positiveDuration);
    public static final ConfigKey<Integer> GENERATOR_DEVICES = key(
            "generator.devices",
            "100",
            "synthetic fleet: number of devices",
            s -> ConfigValues.intInRange(s, 1, 10_000_000));
    public static final ConfigKey<Double> GENERATOR_RATE = key(
            "generator.rate",
            "1000",
            "synthetic fleet: readings per wall-clock second, whole job",
            ConfigValues::positiveNumber);
    public static final ConfigKey<Double> GENERATOR_SPEEDUP = key(
            "generator.speedup",
            "1",
            "synthetic fleet: event-time seconds per wall-clock second; its tables are sized from its"
                    + " peak per this many seconds of event time (its live rate)",
            ConfigValues::positiveNumber);
    public static final ConfigKey<Instant> GENERATOR_START = key(
            "generator.start",
            "now",
            "synthetic fleet: event time of the first reading (ISO-8601 or `now`)",
            s -> s.equalsIgnoreCase("now") ? null : ConfigValues.instant(s));
    public static final ConfigKey<Long> GENERATOR_COUNT = key(
            "generator.count",
            null,
            "synthetic fleet: stop after this many readings (default: unbounded)",
            ConfigValues::positiveLong);
    public static final ConfigKey<Integer> PARALLELISM = key(
            "parallelism",
            "2",
            "local run only: job parallelism (on MSF the service sets it)",
            s -> ConfigValues.intInRange(s, 1, 1024));
    public static final ConfigKey<Duration> CHECKPOINT_INTERVAL = key(
            "checkpoint.interval",
            "PT10S",
            "local run only: checkpoint interval (on MSF the service sets it)",
            ConfigValues::positiveDuration);

    private ConfigKeys() {}

    /** All keys in documentation order. */
    public static List<ConfigKey<?>> all() {
        return Collections.unmodifiableList(Arrays.asList(ALL.values().toArray(new ConfigKey<?>[0])));
    }

    /** The key with this name, or {@code null}. */
    public static ConfigKey<?> byName(String name) {
        return ALL.get(name);
    }

    private static <T> ConfigKey<T> key(String name, String defaultValue, String meaning, ConfigKey.Parser<T> parser) {
        ConfigKey<T> key = new ConfigKey<>(name, defaultValue, meaning, parser);
        ALL.put(name, key);
        return key;
    }
}
