package io.periodtables.sink;

import io.periodtables.emulators.TestTables;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;

/** Test set-up and read-back of the sink's tables in dynalite: {@code pk}/{@code sk} strings. */
final class DynamoDbTables {

    private DynamoDbTables() {}

    static CreateTableRequest createRequest(String table) {
        return TestTables.onDemand(table);
    }

    static void create(DynamoDbClient client, String... tables) {
        for (String table : tables) {
            try {
                client.createTable(createRequest(table));
            } catch (ResourceInUseException exists) {
                // fine: created before
            }
        }
    }

    /** The items of {@code table} by [pk, sk]. */
    static Map<List<String>, Map<String, AttributeValue>> contents(DynamoDbClient client, String table) {
        Map<List<String>, Map<String, AttributeValue>> items = new HashMap<>();
        client.scanPaginator(b -> b.tableName(table).consistentRead(true))
                .items()
                .forEach(item ->
                        items.put(List.of(item.get("pk").s(), item.get("sk").s()), item));
        return items;
    }

    /** The tables whose names start with {@code prefix + "_"}, sorted. */
    static TreeSet<String> tablesOf(DynamoDbClient client, String prefix) {
        TreeSet<String> tables = new TreeSet<>();
        client.listTablesPaginator().tableNames().forEach(name -> {
            if (name.startsWith(prefix + "_")) {
                tables.add(name);
            }
        });
        return tables;
    }
}
