package io.periodtables.query.plan;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.period.PeriodLength;
import java.time.Duration;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The plan for one workload, from {@link CapacityPlanner}: item size and cost of a write, the
 * period, the shard count, the capacity tiers, how many tables live at each tier, the data
 * kept, and the monthly cost with provisioned tiers and with on-demand billing.
 *
 * @param wcuPerWrite write units of one standard write (1 per started KB)
 * @param storedBytesPerItem item size plus DynamoDB's 100 bytes of per-item overhead
 * @param partitionFillTime how long the average rate takes to write 10 GB (one partition)
 * @param period the longest period shorter than {@code partitionFillTime}
 * @param perKeyWcu WCU one partition key takes at the busiest device's peak, after sharding
 * @param lead {@code rotation.lead} that works with {@code period}
 * @param allowedLateness {@code window.allowed-lateness} that works with {@code period}
 * @param currentTables tables at the current tier on average (1 + the prebuilt next one's share)
 * @param storedGb data kept (retention, else one month), GB of 10^9 bytes
 */
@PublicEvolving
public record CapacityPlan(
        PlanInput input,
        long wcuPerWrite,
        long storedBytesPerItem,
        Duration partitionFillTime,
        PeriodLength period,
        int shards,
        double perKeyWcu,
        Capacity current,
        Capacity previous,
        Capacity older,
        Duration lead,
        Duration allowedLateness,
        double currentTables,
        int previousTables,
        int olderTables,
        double storedGb,
        Cost provisioned,
        Cost onDemand,
        List<String> warnings) {

    public CapacityPlan {
        warnings = List.copyOf(warnings);
    }

    /** The billing mode that costs less per month. */
    public boolean onDemandIsCheaper() {
        return onDemand.total() < provisioned.total();
    }

    /** Monthly cost in US dollars (730 hours). */
    @PublicEvolving
    public record Cost(double writes, double reads, double storage) {
        public double total() {
            return writes + reads + storage;
        }
    }
}
