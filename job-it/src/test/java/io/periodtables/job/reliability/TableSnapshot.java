package io.periodtables.job.reliability;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * Every item of every table of one prefix (period, late and rejected tables, as
 * {@link TableNaming#parse} recognises them, so not the tables of a longer prefix that starts
 * with this one), read with consistent scans; numbers canonical.
 * Late tables are filed under {@link ExpectedTables#LATE}; their real names are kept apart.
 */
final class TableSnapshot {
    private final Map<ItemRef, Map<String, AttributeValue>> items;
    private final Set<String> tables;
    private final Set<String> lateTables;

    TableSnapshot(Map<ItemRef, Map<String, AttributeValue>> items, Set<String> tables, Set<String> lateTables) {
        this.items = Collections.unmodifiableMap(new TreeMap<>(items));
        this.tables = Collections.unmodifiableSet(new TreeSet<>(tables));
        this.lateTables = Collections.unmodifiableSet(new TreeSet<>(lateTables));
    }

    static TableSnapshot read(DynamoDbClient client, TableNaming naming) {
        Map<ItemRef, Map<String, AttributeValue>> items = new TreeMap<>();
        Set<String> tables = new TreeSet<>();
        Set<String> lateTables = new TreeSet<>();
        for (String table : client.listTablesPaginator().tableNames()) {
            var kind = naming.parse(table).map(TableNaming.TableRef::kind);
            if (kind.isEmpty() || kind.get() == TableNaming.TableRef.Kind.ROLLUPS) {
                continue; // another prefix's table (even one that starts like ours), or rollups (RollupsITCase)
            }
            tables.add(table);
            boolean late = naming.isLateTable(table);
            if (late) {
                lateTables.add(table);
            }
            String filedAs = late ? ExpectedTables.LATE : table;
            try {
                client.scanPaginator(b -> b.tableName(table).consistentRead(true))
                        .items()
                        .forEach(item -> {
                            ItemRef ref = new ItemRef(
                                    filedAs, item.get("pk").s(), item.get("sk").s());
                            if (items.put(ref, Attributes.canonical(item)) != null) {
                                throw new AssertionError(ref + " is in two late tables: " + lateTables);
                            }
                        });
            } catch (ResourceNotFoundException creating) {
                // listed but still CREATING (DynamoDB answers its items "not found"): no items yet
            }
        }
        return new TableSnapshot(items, tables, lateTables);
    }

    Map<ItemRef, Map<String, AttributeValue>> items() {
        return items;
    }

    /** Every table of the prefix, empty ones included. */
    Set<String> tables() {
        return tables;
    }

    Set<String> lateTables() {
        return lateTables;
    }

    /** The items of one table (or of {@link ExpectedTables#LATE}). */
    Map<ItemRef, Map<String, AttributeValue>> itemsOf(String table) {
        Map<ItemRef, Map<String, AttributeValue>> of = new TreeMap<>();
        items.forEach((ref, item) -> {
            if (ref.table().equals(table)) {
                of.put(ref, item);
            }
        });
        return of;
    }

    int size() {
        return items.size();
    }

    /**
     * The readings of the period and late tables by table name, late items under the (one) late
     * table, the rejected table left out: what {@link io.periodtables.job.RollupCheck} computes
     * rollups and the latest table from.
     */
    Map<String, List<Map<String, AttributeValue>>> readingsByTable(TableNaming naming) {
        Map<String, List<Map<String, AttributeValue>>> byTable = new TreeMap<>();
        items.forEach((ref, item) -> {
            if (ref.table().equals(naming.rejectedTable())) {
                return;
            }
            String table = ref.table().equals(ExpectedTables.LATE)
                    ? lateTables.iterator().next()
                    : ref.table();
            byTable.computeIfAbsent(table, t -> new ArrayList<>()).add(item);
        });
        return byTable;
    }

    /**
     * The label of the first period that starts more than {@code margin} of event time after the
     * newest reading these tables hold: after a stop with a savepoint, the first period a restored
     * job's new operators see whole ({@code margin}: what they saw may be a batch ahead of the
     * tables).
     */
    String firstPeriodAfter(PeriodTablesConfig config, Duration margin) {
        long newest = 0;
        for (List<Map<String, AttributeValue>> readings :
                readingsByTable(config.naming()).values()) {
            for (Map<String, AttributeValue> item : readings) {
                newest = Math.max(
                        newest,
                        WriteSharding.eventMillisOf(item.get(ItemAttributes.SK).s()));
            }
        }
        Period reached = config.calendar().periodOf(newest + margin.toMillis());
        return config.calendar().periodOf(reached.endMillis()).label();
    }
}
