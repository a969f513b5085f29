package io.periodtables.verification;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.query.plan.Prices;
import java.util.List;

/**
 * What a run costs at us-east-1 list prices (other regions differ by a few percent), for the
 * longest a run can take (one hour: every table-hour and shard-hour started is billed whole).
 *
 * @param provisionedTables period, late and rejected tables the job may create at {@code capacity}
 * @param records records put into the stream
 * @param onDemandWrites write request units of the on-demand tables (latest, rollups, bookkeeping)
 */
record CostEstimate(int shards, int provisionedTables, Capacity capacity, int records, int onDemandWrites) {
    /** Kinesis Data Streams, provisioned: per shard-hour, per million PUT payload units (25 KB). */
    static final double SHARD_HOUR = 0.015;

    static final double PUT_UNITS_PER_MILLION = 0.014;

    double streamDollars() {
        return shards * SHARD_HOUR + records * PUT_UNITS_PER_MILLION / 1e6;
    }

    double tableDollars() {
        Prices prices = Prices.usEast1();
        return provisionedTables * (capacity.writeUnits() * prices.wcuHour() + capacity.readUnits() * prices.rcuHour())
                + onDemandWrites * prices.writeRequestsPerMillion() / 1e6;
    }

    double total() {
        return streamDollars() + tableDollars();
    }

    /** The lines printed before the run asks for confirmation. */
    List<String> lines() {
        Prices prices = Prices.usEast1();
        return List.of(
                "Cost at us-east-1 list prices, for at most one hour (a started hour is billed whole):",
                String.format(
                        "  Kinesis: %d shards (1, then 2 after the split) x 1 shard-hour x $%.3f + %d records  $%.4f",
                        shards, SHARD_HOUR, records, streamDollars()),
                String.format(
                        "  DynamoDB: up to %d provisioned tables x 1 hour x (%d WCU x $%.5f + %d RCU x $%.5f)"
                                + " + %d on-demand write units x $%.3f per million  $%.4f",
                        provisionedTables,
                        capacity.writeUnits(),
                        prices.wcuHour(),
                        capacity.readUnits(),
                        prices.rcuHour(),
                        onDemandWrites,
                        prices.writeRequestsPerMillion(),
                        tableDollars()),
                String.format("  Total: at most $%.2f (storage: a few KB, deleted at the end)", total()));
    }
}
