package io.periodtables.job;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacitySizing;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.TableNaming;
import io.periodtables.job.reliability.Attributes;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * Reading the job's tables back from dynalite for assertions: items by {@code [pk, sk]}
 * with numbers in one canonical form (DynamoDB may print {@code 18.0} as {@code 18}), the
 * tables of a prefix, the capacity tier of a table, and bounded polling.
 */
final class TableContents {

    private TableContents() {}

    /** Items by table, then by [pk, sk]. */
    static Map<String, Map<List<String>, Map<String, AttributeValue>>> byTable() {
        return new TreeMap<>();
    }

    /** The items of {@code table} by [pk, sk], numbers canonical; empty when the table does not exist. */
    static Map<List<String>, Map<String, AttributeValue>> items(DynamoDbClient client, String table) {
        Map<List<String>, Map<String, AttributeValue>> items = new HashMap<>();
        try {
            client.scanPaginator(b -> b.tableName(table).consistentRead(true))
                    .items()
                    .forEach(item ->
                            items.put(List.of(item.get("pk").s(), item.get("sk").s()), canonical(item)));
        } catch (ResourceNotFoundException missing) {
            return Map.of();
        }
        return items;
    }

    /** The non-empty tables of {@code naming}'s prefix with their items. */
    static Map<String, Map<List<String>, Map<String, AttributeValue>>> nonEmptyTables(
            DynamoDbClient client, TableNaming naming) {
        Map<String, Map<List<String>, Map<String, AttributeValue>>> tables = byTable();
        for (String table : tablesOf(client, naming)) {
            Map<List<String>, Map<String, AttributeValue>> items = items(client, table);
            if (!items.isEmpty()) {
                tables.put(table, items);
            }
        }
        return tables;
    }

    /** The tables of {@code naming}'s prefix (period, late and rejected), sorted. */
    static TreeSet<String> tablesOf(DynamoDbClient client, TableNaming naming) {
        return client.listTablesPaginator().tableNames().stream()
                .filter(name -> naming.parse(name)
                        .filter(ref -> ref.kind() != TableNaming.TableRef.Kind.ROLLUPS)
                        .isPresent())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** True when {@code table} exists (in any status). */
    static boolean exists(DynamoDbClient client, String table) {
        try {
            client.describeTable(b -> b.tableName(table));
            return true;
        } catch (ResourceNotFoundException missing) {
            return false;
        }
    }

    /**
     * The tier whose configured capacity the table has ({@code CURRENT} also for an open table
     * sized from observation); empty for a table that does not exist or
     * whose capacity is no tier's (the on-demand late and rejected tables).
     */
    static Optional<CapacityTier> tierOf(DynamoDbClient client, PeriodTablesConfig config, String table) {
        TableDescription description;
        try {
            description = client.describeTable(b -> b.tableName(table)).table();
        } catch (ResourceNotFoundException missing) {
            return Optional.empty();
        }
        ProvisionedThroughputDescription throughput = description.provisionedThroughput();
        Capacity capacity = throughput == null || throughput.writeCapacityUnits() == 0
                ? Capacity.ON_DEMAND
                : Capacity.provisioned(throughput.writeCapacityUnits(), throughput.readCapacityUnits());
        for (CapacityTier tier : CapacityTier.values()) {
            if (config.effectiveCapacity(tier).equals(capacity)) {
                return Optional.of(tier);
            }
        }
        // sized from the observed load (or moved by auto scaling): still the open table
        return new CapacitySizing(config).isOpen(capacity) ? Optional.of(CapacityTier.CURRENT) : Optional.empty();
    }

    /** The item in the one canonical form the tests compare ({@link Attributes#canonical}). */
    static Map<String, AttributeValue> canonical(Map<String, AttributeValue> item) {
        return Attributes.canonical(item);
    }

    /** Polls {@code condition} every 100 ms until it holds or {@code bound} has passed; returns its last value. */
    static boolean eventually(Duration bound, BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(bound);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                return false;
            }
            Thread.sleep(100);
        }
        return true;
    }
}
