package io.periodtables.bench;

import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.TestTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.Select;

/** Set-up, item counts and clean-up of the benchmark's tables in dynalite ({@code pk}/{@code sk} strings). */
public final class Tables {

    private Tables() {}

    /**
     * The benchmark's dynalite, with the fidelity layer's limits off: the benchmarks measure what
     * our code costs and sustains, so a provisioned table's WCU or a new on-demand table's warm-up
     * must not set the pace (the tests enforce those limits).
     */
    public static Dynalite dynamoDb() {
        return Dynalite.launcher().limits(Set.of()).start();
    }

    /** Creates {@code table} and waits until it is ACTIVE: a CREATING table refuses writes as missing. */
    static void create(DynamoDbClient client, String table) {
        client.createTable(TestTables.onDemand(table));
        TestTables.awaitActive(client, table);
    }

    /** Tables whose name starts with {@code prefix_}. */
    static List<String> withPrefix(DynamoDbClient client, String prefix) {
        List<String> tables = new ArrayList<>();
        client.listTablesPaginator().tableNames().forEach(name -> {
            if (name.startsWith(prefix + "_")) {
                tables.add(name);
            }
        });
        return tables;
    }

    /** Items in {@code table}, counted by a scan (dynalite's item count is not live). */
    static long count(DynamoDbClient client, String table) {
        long count = 0;
        for (var page : client.scanPaginator(b -> b.tableName(table).select(Select.COUNT))) {
            count += page.count();
        }
        return count;
    }

    /** Items of the prefix's reading tables: not the writers' and latest tables' bookkeeping, nor rollups. */
    public static long countWithPrefix(DynamoDbClient client, String prefix) {
        return withPrefix(client, prefix).stream()
                .filter(t -> !t.equals(prefix + "_writers")
                        && !t.equals(prefix + "_latest")
                        && !t.startsWith(prefix + "_rollups_"))
                .mapToLong(t -> count(client, t))
                .sum();
    }

    public static void deleteWithPrefix(DynamoDbClient client, String prefix) {
        for (String table : withPrefix(client, prefix)) {
            try {
                client.deleteTable(b -> b.tableName(table));
            } catch (ResourceNotFoundException gone) {
                // fine
            }
        }
    }
}
