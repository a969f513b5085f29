package io.periodtables.query.plan;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.PeriodLength;
import java.time.Duration;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Write units per stored reading, by the kind of table the job writes them to, for a {@link
 * FleetShape}: the rule the job's writers follow, done once (bench/RESULTS.md measures it).
 *
 * <ul>
 *   <li><b>period</b>: every reading is a write to its period table, 1 WCU per started KB;
 *   <li><b>latest</b> ({@code latest.enabled}): a device's newest reading is put at most once per
 *       {@code latest.interval} and at every checkpoint, so at most once per the shorter of the
 *       two; a device reporting less often than that is put once per reading. The item is the
 *       reading's plus its table's name;
 *   <li><b>rollups</b> ({@code rollups.every}): per grain, an item per device and bucket with
 *       readings, written when the watermark passes the bucket's end (a rollup item is under 1 KB);
 *   <li><b>late</b>: a reading later than the allowed lateness is written to the late table instead
 *       of its period table: the same write, counted under period, nothing more;
 *   <li><b>bookkeeping</b>: the writers table, an item per sink subtask put when it starts and when
 *       it closes a period.
 * </ul>
 *
 * <p>The latest, rollups, late and writers tables are on-demand whatever {@code tables.billing}
 * says: their writes are paid per request.
 */
@PublicEvolving
public record TableWrites(
        FleetShape fleet, double period, double latest, double rollups, double late, double bookkeeping) {

    /** What a latest item adds to its reading's item: the attributes {@code table} and {@code reading}, a map. */
    static final int LATEST_EXTRA_BYTES = 64;

    /** All kinds, per stored reading. */
    public double total() {
        return period + latest + rollups + late + bookkeeping;
    }

    /** The derived and bookkeeping tables' writes per reading: all but the period tables'. */
    public double derived() {
        return latest + rollups + late + bookkeeping;
    }

    /** The write units per reading of {@code fleet} with the job's {@code config}, for items of {@code itemBytes}. */
    public static TableWrites of(FleetShape fleet, long itemBytes, PeriodLength period, PeriodTablesConfig config) {
        double readingSeconds = FleetShape.seconds(fleet.readingInterval());
        double periodWrites = units(itemBytes);
        double latest = 0;
        if (config.get(ConfigKeys.LATEST_ENABLED)) {
            latest = Math.min(1, readingSeconds / FleetShape.seconds(latestEvery(fleet, config)))
                    * units(itemBytes + LATEST_EXTRA_BYTES);
        }
        double rollups = 0;
        for (Duration grain : config.find(ConfigKeys.ROLLUPS_EVERY).orElse(List.of())) {
            rollups += Math.min(1, readingSeconds / FleetShape.seconds(grain));
        }
        int sinks = 2 + (config.find(ConfigKeys.ROLLUPS_EVERY).isPresent() ? 1 : 0);
        double periodSeconds = period.minimumDuration().toSeconds();
        double bookkeeping = sinks * fleet.parallelism() / periodSeconds / fleet.readingsPerSecond();
        return new TableWrites(fleet, periodWrites, latest, rollups, 0, bookkeeping);
    }

    /**
     * How often a device reporting often enough is put into the latest table: the latest interval or the checkpoint's,
     * whichever is shorter.
     */
    static Duration latestEvery(FleetShape fleet, PeriodTablesConfig config) {
        Duration interval = config.get(ConfigKeys.LATEST_INTERVAL);
        return interval.compareTo(fleet.checkpointInterval()) <= 0 ? interval : fleet.checkpointInterval();
    }

    /** Monthly cost (730 h) of {@code unitsPerReading} write units per reading paid per request. */
    public double monthly(double unitsPerReading, Prices prices) {
        return unitsPerReading
                * fleet.readingsPerSecond()
                * CapacityPlanner.HOURS_PER_MONTH
                * 3600
                / 1e6
                * prices.writeRequestsPerMillion();
    }

    /** Monthly cost of the derived and bookkeeping tables' writes, all on-demand. */
    public double derivedMonthly(Prices prices) {
        return monthly(derived(), prices);
    }

    private static double units(long bytes) {
        return (bytes + 1023) / 1024;
    }
}
