package io.periodtables.rotation;

import io.periodtables.conf.Capacity;
import io.periodtables.conf.CapacitySizing;
import io.periodtables.conf.Period;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.conf.TableNaming;

/**
 * The capacity a period table should have while it is open: sized ({@link CapacitySizing}) from
 * the peak observed on the newest table before it ({@link WriteLoad}), the {@code current} tier
 * while none was observed. An open table is only ever raised towards it, never lowered: a higher
 * capacity came from a throttled sink or from auto scaling, which owns the table's capacity
 * within {@code tables.capacity.current.min}..{@code .max} while it is registered.
 */
final class OpenCapacity {
    private final CapacitySizing sizing;
    private final TableNaming naming;
    private final WriteLoad load;
    private final boolean autoscaling;

    OpenCapacity(PeriodTablesConfig config, WriteLoad load) {
        this.sizing = new CapacitySizing(config);
        this.naming = config.naming();
        this.load = load;
        this.autoscaling = config.autoscaling();
    }

    Capacity of(Period period) {
        return sizing.open(load.peakBefore(naming.periodTable(period)));
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
