package io.periodtables.core.config;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.period.PeriodLength;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The configuration keys of the period tables themselves ({@code tables.*}): their names, period,
 * zone and write shards, TTL, billing and capacity, retention, encryption, table class and
 * deletion protection, each with default and meaning. {@link ConfigKeys} registers them, in this
 * order, between the connection keys and {@code limits.*}: it is where every key is listed and
 * looked up by name.
 */
@PublicEvolving
public final class TableKeys {

    private static final List<ConfigKey<?>> ALL = new ArrayList<>();

    public static final ConfigKey<String> TABLES_PREFIX =
            key("tables.prefix", "readings", "table name prefix, 1-200 of `[A-Za-z0-9_.-]`", ConfigValues::prefix);
    public static final ConfigKey<PeriodLength> TABLES_PERIOD = key(
            "tables.period",
            "P1D",
            "period length: `P1D`, `P1W`, `P1M` or minutes dividing a day (`PT1H`, `PT15M`)",
            PeriodLength::parse);
    public static final ConfigKey<ZoneId> TABLES_ZONE =
            key("tables.zone", "UTC", "zone that periods align to", ConfigValues::zone);
    public static final ConfigKey<Integer> TABLES_SHARDS =
            key("tables.shards", "1", "write shards per device, 1-100", s -> ConfigValues.intInRange(s, 1, 100));
    public static final ConfigKey<Duration> TABLES_TTL = key(
            "tables.ttl",
            null,
            "duration after event time; sets `ttl` and enables TTL",
            ConfigValues::positiveDuration);
    public static final ConfigKey<ConfigKeys.Billing> TABLES_BILLING = key(
            "tables.billing",
            "PROVISIONED",
            "`PROVISIONED` or `PAY_PER_REQUEST`",
            s -> ConfigValues.enumValue(ConfigKeys.Billing.class, s));
    public static final ConfigKey<Capacity> CAPACITY_CURRENT = key(
            "tables.capacity.current",
            "1000/300",
            "WCU/RCU (or `on-demand`) of the table taking writes; with a local run's synthetic fleet at a"
                    + " given `generator.rate`: by default at least `generator.rate` /"
                    + " `tables.capacity.target-utilization` WCU",
            Capacity::parse);
    public static final ConfigKey<Capacity> CAPACITY_PREVIOUS = key(
            "tables.capacity.previous",
            "1/100",
            "WCU/RCU (or `on-demand`) of the table that just closed",
            Capacity::parse);
    public static final ConfigKey<Capacity> CAPACITY_OLDER =
            key("tables.capacity.older", "1/1", "WCU/RCU (or `on-demand`) of older tables", Capacity::parse);
    public static final ConfigKey<Capacity> CAPACITY_CURRENT_MIN = key(
            "tables.capacity.current.min",
            "1/1",
            "WCU/RCU floor of an open table sized from observation, and" + " auto scaling's minimum",
            ConfigValues::provisioned);
    public static final ConfigKey<Capacity> CAPACITY_CURRENT_MAX = key(
            "tables.capacity.current.max",
            "40000/40000",
            "WCU/RCU ceiling of an open table sized from observation," + " and auto scaling's maximum",
            ConfigValues::provisioned);
    public static final ConfigKey<Double> CAPACITY_TARGET_UTILIZATION = key(
            "tables.capacity.target-utilization",
            "0.7",
            "0.2-0.9: a new table gets `ceil(observed peak WCU / this)`;" + " auto scaling's target",
            ConfigValues::utilization);
    public static final ConfigKey<Boolean> CAPACITY_AUTOSCALING = key(
            "tables.capacity.autoscaling",
            "true on AWS when provisioned",
            "register the open table with Application"
                    + " Auto Scaling; default on when `tables.billing=PROVISIONED` and no endpoint override is set",
            ConfigValues::bool);
    public static final ConfigKey<Duration> TABLES_RETENTION = key(
            "tables.retention",
            null,
            "delete tables whose period ended longer ago than this",
            ConfigValues::positiveDuration);
    public static final ConfigKey<String> TABLES_SSE_KMS_KEY = key(
            "tables.sse-kms-key",
            null,
            "KMS key for encryption at rest (default: AWS owned key)",
            ConfigValues::nonEmpty);
    public static final ConfigKey<Capacity> TABLES_ON_DEMAND_MAX = key(
            "tables.on-demand.max",
            null,
            "WRU/RRU per second: DynamoDB's OnDemandThroughput ceiling of on-demand period tables"
                    + " (a cost cap; writes above it are throttled and retried)",
            ConfigValues::provisioned);
    public static final ConfigKey<Capacity> TABLES_WARM_THROUGHPUT_MAX = key(
            "tables.warm-throughput.max",
            "40000/40000",
            "WRU/RRU per second: the most WarmThroughput an on-demand period table is prewarmed to"
                    + " (DynamoDB bills prewarming once)",
            ConfigValues::provisioned);
    public static final ConfigKey<ConfigKeys.TableClass> TABLES_CLASS_CLOSED = key(
            "tables.class.closed",
            "STANDARD",
            "`STANDARD` or `STANDARD_INFREQUENT_ACCESS`: table class of a period table once it closes"
                    + " (with its first lowering)",
            s -> ConfigValues.enumValue(ConfigKeys.TableClass.class, s));
    public static final ConfigKey<Boolean> TABLES_DELETION_PROTECTION =
            key("tables.deletion-protection", "false", "set deletion protection on created tables", ConfigValues::bool);

    private TableKeys() {}

    /** These keys in documentation order. */
    static List<ConfigKey<?>> all() {
        return Collections.unmodifiableList(ALL);
    }

    private static <T> ConfigKey<T> key(String name, String defaultValue, String meaning, ConfigKey.Parser<T> parser) {
        ConfigKey<T> key = new ConfigKey<>(name, defaultValue, meaning, parser);
        ALL.add(key);
        return key;
    }
}
