package io.periodtables.query.plan;

import java.time.Duration;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.Preconditions;

/**
 * What the plan sizes tables for.
 *
 * @param eventsPerSecond average readings per second, whole fleet
 * @param peakPerSecond peak readings per second, whole fleet (sizes the current table's WCU)
 * @param devicePeakPerSecond peak readings per second of the busiest device, which all go to
 *     one partition key unless sharded (sizes the shard count); the fleet's peak when one
 *     device can produce all of it
 * @param itemBytes size of one item by DynamoDB's rules
 * @param retention how long tables are kept ({@code tables.retention}); null to estimate with
 *     one month of data
 */
@PublicEvolving
public record PlanInput(
        double eventsPerSecond,
        double peakPerSecond,
        double devicePeakPerSecond,
        long itemBytes,
        @Nullable Duration retention) {

    public PlanInput {
        Preconditions.checkArgument(eventsPerSecond > 0, "--events-per-second must be > 0, was %s", eventsPerSecond);
        Preconditions.checkArgument(
                peakPerSecond >= eventsPerSecond,
                "--peak (%s) must be at least --events-per-second (%s)",
                peakPerSecond,
                eventsPerSecond);
        Preconditions.checkArgument(
                devicePeakPerSecond > 0 && devicePeakPerSecond <= peakPerSecond,
                "--device-peak (%s) must be > 0 and at most --peak (%s)",
                devicePeakPerSecond,
                peakPerSecond);
        Preconditions.checkArgument(
                itemBytes >= 1 && itemBytes <= 400 * 1024,
                "item size must be 1 B to 400 KB (DynamoDB's item limit), was %s",
                itemBytes);
        Preconditions.checkArgument(
                retention == null || (!retention.isNegative() && !retention.isZero()),
                "--retention must be a positive duration, was %s",
                retention);
    }

    /** A steady rate: the peak and the busiest device's peak are the average. */
    public static PlanInput steady(double eventsPerSecond, long itemBytes, @Nullable Duration retention) {
        return new PlanInput(eventsPerSecond, eventsPerSecond, eventsPerSecond, itemBytes, retention);
    }
}
