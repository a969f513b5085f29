package io.periodtables.query.plan;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacitySizing;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.PeriodTablesConfig;
import java.util.OptionalLong;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Provisioned against on-demand for one {@link CapacityPlan}, at the given prices: the open
 * tables at the fixed {@code tables.capacity.current} tier; sized as the job sizes them from the
 * observed peak ({@code ceil(peak WCU / tables.capacity.target-utilization)}, within the bounds);
 * with auto scaling following the mean load at the target utilisation (the lower bound of what
 * auto scaling costs: spikes it cannot follow are paid at the sized capacity); and on-demand. The
 * previous and older tiers, the reads and the storage are the plan's in every provisioned case.
 * The recommendation compares on-demand with the sized tables (what the job provisions without
 * relying on auto scaling), and the break-even is the peak-to-mean ratio at which they cost the same.
 *
 * @param breakEvenPeakToMean on-demand is cheaper above this peak-to-mean ratio; infinite when never
 */
@PublicEvolving
public record BillingComparison(
        Capacity fixed,
        CapacityPlan.Cost fixedCost,
        Capacity sized,
        CapacityPlan.Cost sizedCost,
        Capacity followingMean,
        CapacityPlan.Cost followingMeanCost,
        CapacityPlan.Cost onDemandCost,
        double breakEvenPeakToMean) {

    /** True when on-demand costs less than the sized provisioned tables. */
    public boolean recommendsOnDemand() {
        return onDemandCost.total() < sizedCost.total();
    }

    public static BillingComparison of(CapacityPlan plan, Prices prices, PeriodTablesConfig config) {
        CapacitySizing sizing =
                new CapacitySizing(config.with(io.periodtables.core.config.TableKeys.TABLES_BILLING, "PROVISIONED"));
        Capacity configured = config.capacity(CapacityTier.CURRENT);
        Capacity fixed = configured.onDemand() ? plan.current() : configured;
        double meanWcu = plan.input().eventsPerSecond() * plan.wcuPerWrite();
        double peakWcu = plan.input().peakPerSecond() * plan.wcuPerWrite();
        Capacity sized = sizing.open(OptionalLong.of((long) Math.ceil(peakWcu)));
        Capacity followingMean = sizing.open(OptionalLong.of((long) Math.ceil(meanWcu)));

        double lowerWcu = plan.previous().writeUnits() * plan.previousTables()
                + plan.older().writeUnits() * plan.olderTables();
        double lowerRcu = plan.previous().readUnits() * plan.previousTables()
                + plan.older().readUnits() * plan.olderTables();
        double storage = plan.provisioned().storage();
        // Break-even: sized writes (linear in the peak) + reads + lower tiers = on-demand writes.
        double perPeakToMean = CapacityPlanner.HOURS_PER_MONTH
                * prices.wcuHour()
                * plan.currentTables()
                * meanWcu
                / sizing.targetUtilization();
        double fixedPart = CapacityPlanner.HOURS_PER_MONTH
                * (prices.wcuHour() * lowerWcu
                        + prices.rcuHour() * (sized.readUnits() * plan.currentTables() + lowerRcu));
        double breakEven = perPeakToMean <= 0
                ? Double.POSITIVE_INFINITY
                : Math.max(0, (plan.onDemand().writes() - fixedPart) / perPeakToMean);
        return new BillingComparison(
                fixed,
                cost(fixed, plan, prices, lowerWcu, lowerRcu, storage),
                sized,
                cost(sized, plan, prices, lowerWcu, lowerRcu, storage),
                followingMean,
                cost(followingMean, plan, prices, lowerWcu, lowerRcu, storage),
                plan.onDemand(),
                breakEven);
    }

    private static CapacityPlan.Cost cost(
            Capacity open, CapacityPlan plan, Prices prices, double lowerWcu, double lowerRcu, double storage) {
        double hours = CapacityPlanner.HOURS_PER_MONTH;
        return new CapacityPlan.Cost(
                hours * prices.wcuHour() * (open.writeUnits() * plan.currentTables() + lowerWcu),
                hours * prices.rcuHour() * (open.readUnits() * plan.currentTables() + lowerRcu),
                storage);
    }
}
