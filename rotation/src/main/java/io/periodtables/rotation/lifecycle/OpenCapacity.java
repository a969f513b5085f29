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
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.function.LongSupplier;

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
 * still in its grace when the previous begins), two without.
 *
 * <p>A period the run saw only in part ({@link WriteLoad#seenWhole}: the run began inside it) does
 * not measure the fleet: its peak is that of the part (an evening, a minute's last seconds). The
 * table is then sized from the larger of that peak and the next period's, which the run saw whole,
 * once that one has closed (its peak final; with {@code window.allowed-lateness} plus {@code
 * rotation.lead} below the period, before the table is prebuilt); until then from the part's peak
 * but at no less than the {@code current} tier ({@link CapacitySizing#openFromPart}). An open table
 * is only ever raised towards its size, never lowered: a higher capacity came from a throttled
 * sink, from auto scaling, which owns the table's capacity within {@code
 * tables.capacity.current.min}..{@code .max} while it is registered, or from that floor.
 */
public final class OpenCapacity {
    private final CapacitySizing sizing;
    private final TableNaming naming;
    private final WriteLoad load;
    private final boolean autoscaling;
    private final Duration lateness;
    private final boolean onDemand;
    private final long maxWarmWrites;
    private final PeriodCalendar calendar;
    /** The rotation's watermark: which periods have closed, their peaks final. */
    private final LongSupplier watermark;

    /** The write units per second DynamoDB serves a new on-demand table before it scales. */
    static final long ON_DEMAND_NEW_TABLE_WRITES = 4_000;

    /** As {@link #OpenCapacity(PeriodTablesConfig, WriteLoad, LongSupplier)} before any watermark: no period closed. */
    public OpenCapacity(PeriodTablesConfig config, WriteLoad load) {
        this(config, load, () -> Long.MIN_VALUE);
    }

    /** Sizes from {@code load}; {@code watermark} is the rotation's, which closes periods. */
    public OpenCapacity(PeriodTablesConfig config, WriteLoad load, LongSupplier watermark) {
        this.watermark = watermark;
        this.calendar = config.calendar();
        this.sizing = new CapacitySizing(config);
        this.naming = config.naming();
        this.load = load;
        this.autoscaling = config.autoscaling();
        this.lateness = config.get(ConfigKeys.ALLOWED_LATENESS);
        this.onDemand = config.effectiveCapacity(CapacityTier.CURRENT).onDemand();
        this.maxWarmWrites = config.get(TableKeys.TABLES_WARM_THROUGHPUT_MAX).writeUnits();
    }

    /**
     * The capacity {@code period}'s table opens at: sized from the peak it is sized from ({@link
     * #peakFor}); no less than the {@code current} tier while that is a part's peak alone; the
     * {@code current} tier when nothing was observed.
     */
    public Capacity of(Period period) {
        OptionalLong peak = peakFor(period, naming::periodTable);
        return peak.isPresent() && !whole(period) ? sizing.openFromPart(peak.getAsLong()) : sizing.open(peak);
    }

    /**
     * The size this run measured for {@code period}'s table, which an existing open table is raised
     * to: as {@link #of} without the {@code current} tier's floor (a replay or a restart that began
     * inside the period measures no less than the run that created the table did); empty when the
     * run observed nothing the table is sized from (a replay or a restart without state that
     * begins after it).
     */
    public Optional<Capacity> measured(Period period) {
        OptionalLong peak = peakFor(period, naming::periodTable);
        return peak.isPresent() ? Optional.of(sizing.open(peak)) : Optional.empty();
    }

    /**
     * The write units per second an on-demand table of {@code period} is prewarmed to ({@code
     * WarmThroughput}): {@code ceil(peak / tables.capacity.target-utilization)} of the peak it is
     * sized from ({@link #peakFor}), when that exceeds the {@value #ON_DEMAND_NEW_TABLE_WRITES}
     * writes/s a new on-demand table serves, at most {@code tables.warm-throughput.max}; 0 when it
     * needs none.
     */
    public long warmWrites(Period period) {
        return onDemand ? warmFor(peakFor(period, naming::periodTable)) : 0;
    }

    /**
     * As {@link #warmWrites}, for the rollups table of {@code period} (always on-demand), from the
     * peak of the rollups tables of the same earlier periods: every device's bucket is written at
     * the same watermark, a burst a cold table serves at 4,000 writes/s.
     */
    public long rollupsWarmWrites(Period period) {
        return warmFor(peakFor(period, naming::rollupsTable));
    }

    /**
     * The peak {@code period}'s table of a kind ({@code tableOf}) is sized from: the peak of that
     * kind's table of {@link #sizedFrom}; when the run saw that period only in part, the larger of
     * it and the next period's once that one has closed.
     */
    private OptionalLong peakFor(Period period, Function<Period, String> tableOf) {
        Period from = sizedFrom(period);
        OptionalLong peak = load.peakOf(tableOf.apply(from));
        if (peak.isEmpty() || load.seenWhole(naming.periodTable(from), from)) {
            return peak;
        }
        Period next = calendar.next(from);
        OptionalLong nextPeak = next.closedBy(watermark.getAsLong(), lateness)
                ? load.peakOf(tableOf.apply(next))
                : OptionalLong.empty();
        return nextPeak.isPresent() ? OptionalLong.of(Math.max(peak.getAsLong(), nextPeak.getAsLong())) : peak;
    }

    /**
     * False when {@code period}'s table is sized from a period the run saw only in part, and the
     * next one, seen whole, has not closed yet (or had no readings): no whole period measured it.
     */
    private boolean whole(Period period) {
        Period from = sizedFrom(period);
        if (load.seenWhole(naming.periodTable(from), from)) {
            return true;
        }
        Period next = calendar.next(from);
        return next.closedBy(watermark.getAsLong(), lateness)
                && load.peakOf(naming.periodTable(next)).isPresent();
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
