package io.periodtables.job;

import io.periodtables.conf.DynamoDbClients;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.conf.TableNaming;

import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.Select;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

import java.io.PrintStream;
import java.util.List;
import java.util.stream.Collectors;

/** Prints the tables of the configured prefix with item counts and capacity: the end of a local run. */
final class TableSummary {

    private TableSummary() {}

    static void print(PeriodTablesConfig config, PrintStream out) {
        TableNaming naming = config.naming();
        try (DynamoDbAsyncClient client = DynamoDbClients.of(config).newAsyncClient(4)) {
            List<String> tables = new java.util.ArrayList<>();
            client.listTablesPaginator(b -> b.build()).tableNames().subscribe(tables::add).join();
            tables = tables.stream().filter(naming::hasOurPrefix).sorted().collect(Collectors.toList());
            if (tables.isEmpty()) {
                out.println("Nothing was written: no table with prefix '" + naming.prefix() + "' exists.");
                return;
            }
            out.printf("%-40s %12s  %s%n", "table", "items", "capacity (WCU/RCU)");
            long total = 0;
            for (String table : tables) {
                long items = countItems(client, table);
                total += items;
                TableDescription d = client.describeTable(b -> b.tableName(table)).join().table();
                out.printf("%-40s %,12d  %s%n", table, items, capacity(d));
            }
            out.printf("%-40s %,12d%n", "total", total);
        }
    }

    private static long countItems(DynamoDbAsyncClient client, String table) {
        long[] count = {0};
        client.scanPaginator(ScanRequest.builder().tableName(table).select(Select.COUNT).build())
                .subscribe(r -> count[0] += r.count())
                .join();
        return count[0];
    }

    private static String capacity(TableDescription d) {
        ProvisionedThroughputDescription p = d.provisionedThroughput();
        boolean onDemand = d.billingModeSummary() != null
                && "PAY_PER_REQUEST".equals(d.billingModeSummary().billingModeAsString());
        if (onDemand || p == null || p.writeCapacityUnits() == null || p.writeCapacityUnits() == 0) {
            return "on-demand";
        }
        return p.writeCapacityUnits() + "/" + p.readCapacityUnits();
    }
}
