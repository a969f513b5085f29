package io.periodtables.rotation;

import io.periodtables.conf.Capacity;

import org.apache.flink.annotation.PublicEvolving;

import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * What DescribeTable says about one table, reduced to what the rotation acts on.
 *
 * @param status DynamoDB's table status ({@code ACTIVE}, {@code CREATING}, {@code UPDATING}, ...)
 * @param capacity on-demand, or the provisioned write/read units
 */
@PublicEvolving
public record TableInfo(String name, String status, Capacity capacity, boolean deletionProtected) {

    static TableInfo of(TableDescription table) {
        return new TableInfo(table.tableName(), table.tableStatusAsString(), capacityOf(table),
                Boolean.TRUE.equals(table.deletionProtectionEnabled()));
    }

    /** On-demand when the billing mode says so, else the provisioned units. */
    static Capacity capacityOf(TableDescription table) {
        if (table.billingModeSummary() != null
                && table.billingModeSummary().billingMode() == BillingMode.PAY_PER_REQUEST) {
            return Capacity.ON_DEMAND;
        }
        var throughput = table.provisionedThroughput();
        long write = throughput == null || throughput.writeCapacityUnits() == null ? 0 : throughput.writeCapacityUnits();
        long read = throughput == null || throughput.readCapacityUnits() == null ? 0 : throughput.readCapacityUnits();
        // A table created on-demand may report 0/0 without a billing summary.
        return write == 0 && read == 0 ? Capacity.ON_DEMAND : new Capacity(write, read, false);
    }
}
