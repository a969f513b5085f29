package io.periodtables.rotation.lifecycle;

import io.periodtables.core.capacity.Capacity;
import java.time.Instant;
import org.apache.flink.annotation.PublicEvolving;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * One table as DescribeTable last saw it, reduced to what the life cycle acts on. The truth is
 * DynamoDB; this is only what the last look found.
 *
 * @param status DynamoDB's table status ({@code ACTIVE}, {@code CREATING}, {@code UPDATING}, ...)
 * @param capacity on-demand, or the provisioned write/read units
 * @param decreasesToday capacity decreases DynamoDB counted today (UTC), 0 when unknown
 * @param lastDecrease when the capacity was last decreased, null when never
 * @param lastIncrease when the capacity was last increased, null when never
 * @param created true when the call that returned this description created the table
 * @param tableClass DynamoDB's table class ({@code STANDARD} when not reported)
 * @param warmWrites the write units per second DynamoDB reports the table warmed to, 0 when none
 */
@PublicEvolving
public record ManagedTable(
        String name,
        String status,
        Capacity capacity,
        boolean deletionProtected,
        long decreasesToday,
        Instant lastDecrease,
        Instant lastIncrease,
        boolean created,
        String tableClass,
        long warmWrites) {

    /** DynamoDB's default table class. */
    public static final String STANDARD = "STANDARD";

    public static ManagedTable of(TableDescription table, boolean created) {
        ProvisionedThroughputDescription throughput = table.provisionedThroughput();
        long decreases = throughput == null || throughput.numberOfDecreasesToday() == null
                ? 0
                : throughput.numberOfDecreasesToday();
        return new ManagedTable(
                table.tableName(),
                table.tableStatusAsString(),
                capacityOf(table),
                Boolean.TRUE.equals(table.deletionProtectionEnabled()),
                decreases,
                throughput == null ? null : throughput.lastDecreaseDateTime(),
                throughput == null ? null : throughput.lastIncreaseDateTime(),
                created,
                table.tableClassSummary() == null || table.tableClassSummary().tableClass() == null
                        ? STANDARD
                        : table.tableClassSummary().tableClassAsString(),
                table.warmThroughput() == null || table.warmThroughput().writeUnitsPerSecond() == null
                        ? 0
                        : table.warmThroughput().writeUnitsPerSecond());
    }

    public boolean isActive() {
        return "ACTIVE".equals(status);
    }

    /** On-demand when the billing mode says so, else the provisioned units. */
    public static Capacity capacityOf(TableDescription table) {
        if (table.billingModeSummary() != null
                && table.billingModeSummary().billingMode() == BillingMode.PAY_PER_REQUEST) {
            return Capacity.ON_DEMAND;
        }
        var throughput = table.provisionedThroughput();
        long write =
                throughput == null || throughput.writeCapacityUnits() == null ? 0 : throughput.writeCapacityUnits();
        long read = throughput == null || throughput.readCapacityUnits() == null ? 0 : throughput.readCapacityUnits();
        // A table created on-demand may report 0/0 without a billing summary.
        return write == 0 && read == 0 ? Capacity.ON_DEMAND : new Capacity(write, read, false);
    }
}
