package io.periodtables.query.plan;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacitySizing;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.TableNaming;
import org.apache.flink.annotation.PublicEvolving;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.TableClass;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * One real table as the {@code cost} command prices it, from DescribeTable: its capacity and
 * billing mode, items and bytes, its tier (or kind), and its monthly cost at {@link Prices}:
 * 730 hours of provisioned capacity plus storage (on-demand tables: storage only, their
 * requests are paid as they happen and DescribeTable does not count them).
 */
@PublicEvolving
public record TableCost(
        String table,
        String tier,
        Capacity capacity,
        long items,
        long bytes,
        CapacityPlan.Cost monthly,
        String onDemandLimits) {

    /**
     * Prices a described table of {@code config}'s prefix, at its table class's prices; its tier ends in {@code -IA} on
     * Standard-IA.
     */
    public static TableCost of(TableDescription d, PeriodTablesConfig config, Prices standard) {
        boolean infrequentAccess = d.tableClassSummary() != null
                && d.tableClassSummary().tableClass() == TableClass.STANDARD_INFREQUENT_ACCESS;
        Prices prices = infrequentAccess ? standard.infrequentAccess() : standard;
        boolean onDemand =
                d.billingModeSummary() != null && d.billingModeSummary().billingMode() == BillingMode.PAY_PER_REQUEST;
        Capacity capacity = onDemand
                        || d.provisionedThroughput() == null
                        || d.provisionedThroughput().writeCapacityUnits() == 0
                ? Capacity.ON_DEMAND
                : Capacity.provisioned(
                        d.provisionedThroughput().writeCapacityUnits(),
                        d.provisionedThroughput().readCapacityUnits());
        long items = d.itemCount() == null ? 0 : d.itemCount();
        long bytes = d.tableSizeBytes() == null ? 0 : d.tableSizeBytes();
        double hours = CapacityPlanner.HOURS_PER_MONTH;
        CapacityPlan.Cost monthly = new CapacityPlan.Cost(
                hours * capacity.writeUnits() * prices.wcuHour(),
                hours * capacity.readUnits() * prices.rcuHour(),
                bytes / 1e9 * prices.storageGbMonth());
        String tier = tier(d.tableName(), capacity, config) + (infrequentAccess ? "-IA" : "");
        return new TableCost(d.tableName(), tier, capacity, items, bytes, monthly, onDemandLimits(d));
    }

    /**
     * An on-demand table's warm throughput and ceiling as DynamoDB reports them, e.g. {@code warm 10000 w/s, max
     * 100/200}; empty when none.
     */
    static String onDemandLimits(TableDescription d) {
        java.util.List<String> parts = new java.util.ArrayList<>();
        if (d.warmThroughput() != null
                && d.warmThroughput().writeUnitsPerSecond() != null
                && d.warmThroughput().writeUnitsPerSecond() > 0) {
            parts.add("warm " + d.warmThroughput().writeUnitsPerSecond() + " w/s");
        }
        if (d.onDemandThroughput() != null && d.onDemandThroughput().maxWriteRequestUnits() != null) {
            parts.add("max " + d.onDemandThroughput().maxWriteRequestUnits() + "/"
                    + d.onDemandThroughput().maxReadRequestUnits());
        }
        return String.join(", ", parts);
    }

    /**
     * A period table's tier (the lowest that matches; {@code CURRENT} also when sized from the
     * load), else its kind: {@code late}, {@code rejected}, {@code rollups}, the bookkeeping
     * tables {@code latest} and {@code writers}, or {@code other}.
     */
    static String tier(String table, Capacity capacity, PeriodTablesConfig config) {
        if (table.equals(config.naming().latestTable())) {
            return "latest";
        }
        if (table.equals(config.naming().writersTable())) {
            return "writers";
        }
        TableNaming.TableRef.Kind kind =
                config.naming().parse(table).map(TableNaming.TableRef::kind).orElse(null);
        if (kind == null) {
            return "other";
        }
        if (kind != TableNaming.TableRef.Kind.PERIOD) {
            return kind.name().toLowerCase(java.util.Locale.ROOT);
        }
        for (CapacityTier tier : new CapacityTier[] {CapacityTier.OLDER, CapacityTier.PREVIOUS, CapacityTier.CURRENT}) {
            if (config.effectiveCapacity(tier).equals(capacity)) {
                return tier.name();
            }
        }
        return new CapacitySizing(config).isOpen(capacity) ? CapacityTier.CURRENT.name() : "?";
    }
}
