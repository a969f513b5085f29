package io.periodtables.query.plan;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.ConfigKey;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.core.period.PeriodLength;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The Developer Guide's arithmetic for period tables, done once:
 *
 * <ul>
 *   <li>a standard write costs 1 WCU per started KB of item;
 *   <li>a partition holds 10 GB: choose the longest period in which the average rate writes
 *       less than that (periods P1M, P1W, P1D, PT12H … PT15M; a month counts 31 days);
 *   <li>a partition key takes at most 1,000 WCU: shard the busiest device over
 *       {@code ceil(peak WCU / 1000)} keys;
 *   <li>the current table gets the fleet's peak WCU; previous and older tiers keep their
 *       configured capacity;
 *   <li>a month is 730 hours; stored data counts 100 bytes of overhead per item.
 * </ul>
 */
@PublicEvolving
public final class CapacityPlanner {

    /** One partition's storage, 10 GB (10^10 bytes). */
    public static final double PARTITION_BYTES = 10e9;
    /** One partition's (and so one partition key's) write throughput. */
    public static final double PARTITION_WCU = 1000;
    /** DynamoDB's per-item storage overhead. */
    public static final int ITEM_OVERHEAD_BYTES = 100;

    public static final double HOURS_PER_MONTH = 730;
    /** Default quotas worth a warning: WCU of one provisioned table, tables per region. */
    static final long TABLE_WCU_QUOTA = 40_000;

    static final long TABLES_QUOTA = 2_500;

    private static final String[] PERIODS = {
        "P1M", "P1W", "P1D", "PT12H", "PT6H", "PT4H", "PT3H", "PT2H", "PT1H", "PT30M", "PT15M"
    };

    private CapacityPlanner() {}

    public static CapacityPlan plan(PlanInput in, Prices prices, PeriodTablesConfig config) {
        List<String> warnings = new ArrayList<>();
        long wcuPerWrite = (in.itemBytes() + 1023) / 1024;
        long stored = in.itemBytes() + ITEM_OVERHEAD_BYTES;

        Duration fill = Duration.ofMillis((long) (PARTITION_BYTES / (in.eventsPerSecond() * in.itemBytes()) * 1000));
        PeriodLength period = null;
        for (String candidate : PERIODS) {
            PeriodLength p = PeriodLength.parse(candidate);
            if (longest(p).compareTo(fill) < 0) {
                period = p;
                break;
            }
        }
        if (period == null) {
            period = PeriodLength.parse(PERIODS[PERIODS.length - 1]);
            warnings.add("even " + period + " tables take more than 10 GB; the shortest period offered is used");
        }

        double keyWcu = in.devicePeakPerSecond() * wcuPerWrite;
        int shards = (int) Math.max(1, Math.ceil(keyWcu / PARTITION_WCU));
        if (shards > 100) {
            warnings.add(shards + " shards would be needed; tables.shards allows 100, so one key takes "
                    + Math.round(keyWcu / 100) + " WCU");
            shards = 100;
        }

        Capacity current = Capacity.provisioned(
                (long) Math.max(1, Math.ceil(in.peakPerSecond() * wcuPerWrite)),
                provisioned(config, CapacityTier.CURRENT, TableKeys.CAPACITY_CURRENT)
                        .readUnits());
        Capacity previous = provisioned(config, CapacityTier.PREVIOUS, TableKeys.CAPACITY_PREVIOUS);
        Capacity older = provisioned(config, CapacityTier.OLDER, TableKeys.CAPACITY_OLDER);
        if (current.writeUnits() > TABLE_WCU_QUOTA) {
            warnings.add("the current table needs " + current.writeUnits() + " WCU, above the default table quota of "
                    + TABLE_WCU_QUOTA + "; request a quota increase");
        }

        Duration minimum = period.minimumDuration();
        Duration lead = fitInto(config.get(ConfigKeys.ROTATION_LEAD), minimum);
        Duration lateness = fitInto(config.get(ConfigKeys.ALLOWED_LATENESS), minimum);
        double periodHours = averageHours(period);
        double horizonHours =
                in.retention() == null ? HOURS_PER_MONTH : in.retention().toMinutes() / 60.0;
        int closed = (int) Math.ceil(horizonHours / periodHours);
        int previousTables = Math.min(1, closed);
        int olderTables = closed - previousTables;
        double currentTables = 1 + lead.toMinutes() / 60.0 / periodHours;
        if (closed + 3 > TABLES_QUOTA) {
            warnings.add((closed + 3) + " tables are kept, above the default quota of " + TABLES_QUOTA
                    + " tables per region; use a longer period or a shorter retention");
        }

        double storedGb = in.eventsPerSecond() * stored * horizonHours * 3600 / 1e9;
        double storage = storedGb * prices.storageGbMonth();
        double wcuHours = current.writeUnits() * currentTables
                + previous.writeUnits() * previousTables
                + older.writeUnits() * olderTables;
        double rcuHours = current.readUnits() * currentTables
                + previous.readUnits() * previousTables
                + older.readUnits() * olderTables;
        CapacityPlan.Cost provisionedCost = new CapacityPlan.Cost(
                HOURS_PER_MONTH * prices.wcuHour() * wcuHours, HOURS_PER_MONTH * prices.rcuHour() * rcuHours, storage);
        double writesPerMonth = in.eventsPerSecond() * HOURS_PER_MONTH * 3600 * wcuPerWrite;
        CapacityPlan.Cost onDemandCost =
                new CapacityPlan.Cost(writesPerMonth / 1e6 * prices.writeRequestsPerMillion(), 0, storage);

        return new CapacityPlan(
                in,
                wcuPerWrite,
                stored,
                fill,
                period,
                shards,
                keyWcu / shards,
                current,
                previous,
                older,
                lead,
                lateness,
                currentTables,
                previousTables,
                olderTables,
                storedGb,
                provisionedCost,
                onDemandCost,
                warnings);
    }

    /** The longest a period of this length can be, for the 10 GB rule. */
    static Duration longest(PeriodLength length) {
        return length.kind() == PeriodLength.Kind.MONTH ? Duration.ofDays(31) : length.minimumDuration();
    }

    private static double averageHours(PeriodLength length) {
        return length.kind() == PeriodLength.Kind.MONTH
                ? HOURS_PER_MONTH
                : length.minimumDuration().toMinutes() / 60.0;
    }

    /** A tier's configured capacity, or the key's default when the tier is configured on-demand. */
    private static Capacity provisioned(PeriodTablesConfig config, CapacityTier tier, ConfigKey<Capacity> key) {
        Capacity configured = config.capacity(tier);
        return configured.onDemand() ? Capacity.parse(key.defaultValue()) : configured;
    }

    /** {@code configured} when it is shorter than the period (as the configuration requires), else a third of it. */
    private static Duration fitInto(Duration configured, Duration period) {
        return configured.compareTo(period) < 0 ? configured : period.dividedBy(3);
    }
}
