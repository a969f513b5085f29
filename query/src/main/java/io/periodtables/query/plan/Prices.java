package io.periodtables.query.plan;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.Preconditions;

/**
 * DynamoDB prices the plan's monthly estimate uses, in US dollars (standard table class; {@link
 * #infrequentAccess} for the other).
 *
 * @param wcuHour provisioned write capacity, per WCU-hour
 * @param rcuHour provisioned read capacity, per RCU-hour
 * @param writeRequestsPerMillion on-demand writes, per million write request units
 * @param storageGbMonth storage, per GB-month
 */
@PublicEvolving
public record Prices(double wcuHour, double rcuHour, double writeRequestsPerMillion, double storageGbMonth) {

    public Prices {
        Preconditions.checkArgument(
                wcuHour >= 0 && rcuHour >= 0 && writeRequestsPerMillion >= 0 && storageGbMonth >= 0,
                "prices must be >= 0");
    }

    /**
     * us-east-1 list prices: provisioned $0.00065 per WCU-hour and $0.00013 per RCU-hour,
     * on-demand $0.625 per million write request units (the price since 1 November 2024; it
     * was $1.25 before), storage $0.25 per GB-month.
     */
    public static Prices usEast1() {
        return new Prices(0.00065, 0.00013, 0.625, 0.25);
    }

    /**
     * The same prices for the Standard-Infrequent Access table class: requests and provisioned
     * capacity 25 % dearer, storage 60 % cheaper (in us-east-1: $0.10 per GB-month).
     */
    public Prices infrequentAccess() {
        return new Prices(wcuHour * 1.25, rcuHour * 1.25, writeRequestsPerMillion * 1.25, storageGbMonth * 0.4);
    }
}
