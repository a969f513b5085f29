package io.periodtables.rotation.lifecycle;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacitySizing;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.TableNaming;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * The capacity a period table should have while it is open: sized ({@link CapacitySizing}) from
 * the fleet's rate, the peak per second of event time observed on one period before it ({@link
 * WriteLoad}), the {@code current} tier when that period had no readings in this run (the first
 * tables of a run). Event time, not the wall clock: a backfill or a replay reads a backlog faster
 * than it was produced, which changes neither the peak nor the size, so a table gets the same size
 * at any read speed; the tables such a run writes are raised when the sink is throttled on them
 * ({@code TableOwner#throttled}). The synthetic fleet's peak is per {@link WriteLoad#liveSecond}.
 * The period is the newest
 * one that had closed when the period before the table's began: the table can be created from
 * that moment on (its period is open), and that peak is final by then, so a table gets the same
 * capacity whenever it is created, at any speed and parallelism. With {@code
 * window.allowed-lateness} above zero that is three periods back (the one before the previous is
 * still in its grace when the previous begins), two without. An open table is only ever raised towards it, never lowered: a higher
 * capacity came from a throttled sink or from auto scaling, which owns the table's capacity
 * within {@code tables.capacity.current.min}..{@code .max} while it is registered.
 */
public final class OpenCapacity {
    private final CapacitySizing sizing;
    private final TableNaming naming;
    private final WriteLoad load;
    private final boolean autoscaling;
    private final Duration lateness;
    private final boolean onDemand;
    private final long maxWarmWrites;

    /** The write units per second DynamoDB serves a new on-demand table before it scales. */
    static final long ON_DEMAND_NEW_TABLE_WRITES = 4_000;

    public OpenCapacity(PeriodTablesConfig config, WriteLoad load) {
        this.sizing = new CapacitySizing(config);
        this.naming = config.naming();
        this.load = load;
        this.autoscaling = config.autoscaling();
        this.lateness = config.get(ConfigKeys.ALLOWED_LATENESS);
        this.onDemand = config.effectiveCapacity(CapacityTier.CURRENT).onDemand();
        this.maxWarmWrites = config.get(TableKeys.TABLES_WARM_THROUGHPUT_MAX).writeUnits();
    }

    /** The capacity {@code period}'s table opens at; the {@code current} tier when its sizing period was not observed. */
    public Capacity of(Period period) {
        return sizing.open(load.peakOf(naming.periodTable(sizedFrom(period))));
    }

    /** True when the run observed the period {@code period}'s table is sized from: {@link #of} is a measured size. */
    public boolean measured(Period period) {
        return load.peakOf(naming.periodTable(sizedFrom(period))).isPresent();
    }

    /**
     * The write units per second an on-demand table of {@code period} is prewarmed to ({@code
     * WarmThroughput}): {@code ceil(peak / tables.capacity.target-utilization)} of the period it is
     * sized from, when that exceeds the {@value #ON_DEMAND_NEW_TABLE_WRITES} writes/s a new
     * on-demand table serves, at most {@code tables.warm-throughput.max}; 0 when it needs none.
     */
    public long warmWrites(Period period) {
        return onDemand ? warmFor(load.peakOf(naming.periodTable(sizedFrom(period)))) : 0;
    }

    /**
     * As {@link #warmWrites}, for the rollups table of {@code period} (always on-demand), from the
     * peak of the rollups table of the same earlier period: every device's bucket is written at
     * the same watermark, a burst a cold table serves at 4,000 writes/s.
     */
    public long rollupsWarmWrites(Period period) {
        return warmFor(load.peakOf(naming.rollupsTable(sizedFrom(period))));
    }

    private long warmFor(OptionalLong peak) {
        if (peak.isEmpty()) {
            return 0;
        }
        long need = sizing.writeUnitsFor(peak.getAsLong());
        return need <= ON_DEMAND_NEW_TABLE_WRITES ? 0 : Math.min(need, maxWarmWrites);
    }

    /** The period whose peak sizes {@code period}'s table: the newest closed when the one before it begins. */
    public Period sizedFrom(Period period) {
        PeriodCalendar calendar = naming.calendar();
        Period before = calendar.previous(period);
        return calendar.previous(calendar.oldestOpen(before.startMillis(), lateness));
    }

    /** True when an open table at {@code actual} needs no change to reach {@code target}. */
    boolean satisfies(Capacity actual, Capacity target) {
        if (actual.equals(target)) {
            return true;
        }
        if (actual.onDemand() || target.onDemand()) {
            return false;
        }
        if (autoscaling && sizing.within(actual)) {
            return true;
        }
        return actual.writeUnits() >= target.writeUnits() && actual.readUnits() >= target.readUnits();
    }
}
