package io.periodtables.core.capacity;

import java.io.Serializable;
import java.util.OptionalLong;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The write capacity a new period table opens with: {@code ceil(peak / tables.capacity.target-utilization)}
 * WCU from the peak per-second write units observed on an earlier period's table (which one: the
 * rotation's {@code OpenCapacity}), bounded by {@code
 * tables.capacity.current.min} and {@code .max}; the {@code current} tier while nothing has been
 * observed. Reads are not measured, so a sized table keeps the {@code current} tier's read units
 * (within the same bounds). On-demand billing has nothing to size. Used by the rotation to create
 * tables and by the {@code plan} command to price them, so both agree.
 *
 * <p>A peak is the fleet's need only when it was observed over the whole period: a run that
 * started, or was restored without its observations, inside the period saw part of it (an
 * evening, the last seconds of a minute), and that part's peak is a floor of the need, not its
 * measure. A table sized from such a peak alone opens at no less than the {@code current} tier
 * ({@link #openFromPart}), which for a local run's synthetic fleet already holds its stated {@code
 * generator.rate}.
 */
@PublicEvolving
public final class CapacitySizing implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Capacity current;
    private final Capacity min;
    private final Capacity max;
    private final double target;

    public CapacitySizing(Settings config) {
        this.current = config.effectiveCapacity(CapacityTier.CURRENT);
        this.min = config.currentMin();
        this.max = config.currentMax();
        this.target = config.targetUtilization();
    }

    /**
     * The configuration as the sizing rule sees it. {@code PeriodTablesConfig} implements it: the
     * configuration holds capacities, so capacity takes its settings through this view and never
     * depends on the configuration.
     */
    @PublicEvolving
    public interface Settings {
        /** A tier's capacity as the tables get it (on-demand for every tier with on-demand billing). */
        Capacity effectiveCapacity(CapacityTier tier);

        /** {@code tables.capacity.current.min}. */
        Capacity currentMin();

        /** {@code tables.capacity.current.max}. */
        Capacity currentMax();

        /** {@code tables.capacity.target-utilization}. */
        double targetUtilization();
    }

    /** The open capacity for a table whose predecessor peaked at {@code peakWriteUnits} per second, if observed. */
    public Capacity open(OptionalLong peakWriteUnits) {
        if (current.onDemand() || peakWriteUnits.isEmpty()) {
            return current;
        }
        return Capacity.provisioned(
                clamp(writeUnitsFor(peakWriteUnits.getAsLong()), min.writeUnits(), max.writeUnits()),
                clamp(current.readUnits(), min.readUnits(), max.readUnits()));
    }

    /**
     * The open capacity for a table sized from a peak of {@code partialPeakWriteUnits} per second
     * observed over only part of its period: {@link #open} of that peak, but never less than the
     * {@code current} tier (on-demand billing: the tier).
     */
    public Capacity openFromPart(long partialPeakWriteUnits) {
        Capacity sized = open(OptionalLong.of(partialPeakWriteUnits));
        if (sized.onDemand()) {
            return sized;
        }
        return Capacity.provisioned(
                Math.max(sized.writeUnits(), current.writeUnits()), Math.max(sized.readUnits(), current.readUnits()));
    }

    /** {@code ceil(peak / target)}: the WCU at which {@code peak} uses the target utilisation. */
    public long writeUnitsFor(double peakWriteUnits) {
        // the small epsilon keeps 70 / 0.7 at 100 instead of 101 (binary fractions)
        return (long) Math.ceil(peakWriteUnits / target - 1e-9);
    }

    /**
     * True when {@code capacity} is what an open table may have: the {@code current} tier, or
     * for provisioned tables anything within the bounds (sized, or moved there by auto scaling).
     */
    public boolean isOpen(Capacity capacity) {
        if (capacity.equals(current)) {
            return true;
        }
        return !current.onDemand() && !capacity.onDemand() && within(capacity);
    }

    /** True when both units of a provisioned capacity lie within {@code min}..{@code max}. */
    public boolean within(Capacity capacity) {
        return !capacity.onDemand()
                && capacity.writeUnits() >= min.writeUnits()
                && capacity.writeUnits() <= max.writeUnits()
                && capacity.readUnits() >= min.readUnits()
                && capacity.readUnits() <= max.readUnits();
    }

    public Capacity min() {
        return min;
    }

    public Capacity max() {
        return max;
    }

    public double targetUtilization() {
        return target;
    }

    private static long clamp(long value, long low, long high) {
        return Math.max(low, Math.min(high, value));
    }
}
