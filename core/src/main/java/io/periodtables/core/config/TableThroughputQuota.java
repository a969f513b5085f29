package io.periodtables.core.config;

import io.periodtables.core.capacity.Capacity;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The per-table throughput quota ({@code limits.max-table-units}, default 40,000: "Per table:
 * 40,000 read request units and 40,000 write request units" on-demand, "40,000 read capacity
 * units and 40,000 write capacity units" provisioned, DynamoDB's quotas page). Every throughput
 * the job asks a table for comes from a key checked here at start. DynamoDB's docs name no answer
 * to a WarmThroughput or OnDemandThroughput above the quota, and one answer may be to accept it
 * and serve the quota: asking for no more than the quota makes that answer harmless.
 */
@PublicEvolving
public final class TableThroughputQuota {
    private static final List<ConfigKey<Capacity>> CAPACITIES = List.of(
            TableKeys.CAPACITY_CURRENT,
            TableKeys.CAPACITY_PREVIOUS,
            TableKeys.CAPACITY_OLDER,
            TableKeys.CAPACITY_CURRENT_MIN,
            TableKeys.CAPACITY_CURRENT_MAX,
            TableKeys.TABLES_ON_DEMAND_MAX,
            TableKeys.TABLES_WARM_THROUGHPUT_MAX);

    private final PeriodTablesConfig config;
    private final long maxUnits;

    private TableThroughputQuota(PeriodTablesConfig config) {
        this.config = config;
        this.maxUnits = config.get(ConfigKeys.LIMITS_MAX_TABLE_UNITS);
    }

    public static TableThroughputQuota of(PeriodTablesConfig config) {
        return new TableThroughputQuota(config);
    }

    /** Throws a one-line {@link ConfigException} naming the first key that asks a table for more than the quota. */
    public void check() {
        config.find(ConfigKeys.LATEST_WARM_WRITES)
                .filter(warm -> warm > maxUnits)
                .ifPresent(warm -> refuse(ConfigKeys.LATEST_WARM_WRITES, "write units a second"));
        for (ConfigKey<Capacity> key : CAPACITIES) {
            config.find(key)
                    .filter(c -> !c.onDemand() && (c.writeUnits() > maxUnits || c.readUnits() > maxUnits))
                    .ifPresent(c -> refuse(key, "units (write/read)"));
        }
    }

    private void refuse(ConfigKey<?> key, String units) {
        throw ConfigException.invalid(
                key.name(),
                config.asText().get(key.name()),
                String.format(
                        "asks a table for more %s than limits.max-table-units = %d, the per-table throughput quota:"
                                + " lower it, or have the quota raised and set limits.max-table-units to it",
                        units, maxUnits));
    }
}
