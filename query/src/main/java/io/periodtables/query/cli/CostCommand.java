package io.periodtables.query.cli;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.period.PeriodLength;
import io.periodtables.core.period.TableNaming;
import io.periodtables.query.QueryFailedException;
import io.periodtables.query.plan.FleetShape;
import io.periodtables.query.plan.Prices;
import io.periodtables.query.plan.TableCost;
import io.periodtables.query.plan.TableWrites;
import io.periodtables.query.plan.WritesReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * The {@code cost} command: what the tables of a prefix cost per month as they are now
 * (DescribeTable of each), with the total, and what the same data would cost in one on-demand
 * table (its storage, and writing its items once).
 */
@Command(
        name = "cost",
        sortOptions = false,
        description = {
            "Prints each table's monthly cost and tier as DynamoDB describes it now, the total, and one on-demand"
                    + " table for comparison.",
            "With --devices and --reading-interval it also prices the writes of the on-demand tables (latest,"
                    + " rollups, late, writers), which DescribeTable does not count."
        })
public final class CostCommand implements Callable<Integer> {
    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help and exit.")
    boolean help;

    @Mixin
    FleetOptions fleet;

    /** The job's configuration keys: {@code --key value}, {@code --config file}. */
    @Unmatched
    List<String> configuration = new ArrayList<>();

    private final CliOptions.Streams streams;

    CostCommand(CliOptions.Streams streams) {
        this.streams = streams;
    }

    @Override
    public Integer call() {
        CliOptions.DynamoDbTarget target = CliOptions.dynamoDbConfiguration(configuration);
        target.check(streams.err());
        PeriodTablesConfig config = target.config();
        TableNaming naming = config.naming();
        List<TableCost> tables = new ArrayList<>();
        try (DynamoDbAsyncClient client = DynamoDbClients.of(config).newAsyncClient(4)) {
            for (String name : names(client, naming)) {
                TableDescription d =
                        client.describeTable(b -> b.tableName(name)).join().table();
                tables.add(TableCost.of(d, config, Prices.usEast1()));
            }
        } catch (java.util.concurrent.CompletionException e) {
            throw new QueryFailedException(
                    "DynamoDB could not answer: " + e.getCause().getMessage(), e.getCause());
        }
        streams.out().print(render(tables, Prices.usEast1()));
        streams.out().print(writes(tables, config));
        return 0;
    }

    /**
     * The on-demand tables' writes for the fleet's shape ({@link TableWrites}), with items the size
     * of the period tables' average; a hint when the shape is not given.
     */
    private String writes(List<TableCost> tables, PeriodTablesConfig config) {
        if (fleet.devices == null || fleet.readingInterval == null) {
            return "writes of the on-demand tables (latest, rollups, late, writers): give --devices and"
                    + " --reading-interval to price them from the fleet's shape\n";
        }
        long items = 0;
        long bytes = 0;
        for (TableCost t : tables) {
            if (config.naming()
                    .parse(t.table())
                    .filter(r -> r.kind() == TableNaming.TableRef.Kind.PERIOD)
                    .isPresent()) {
                items += t.items();
                bytes += t.bytes();
            }
        }
        FleetShape shape = fleet.shape(fleet.devices, fleet.readingInterval, new ArrayList<>());
        PeriodLength period = config.get(TableKeys.TABLES_PERIOD);
        TableWrites writes = TableWrites.of(shape, items == 0 ? 1 : Math.max(1, bytes / items), period, config);
        return WritesReport.render(writes, period, Prices.usEast1(), config);
    }

    private static List<String> names(DynamoDbAsyncClient client, TableNaming naming) {
        List<String> names = new ArrayList<>();
        String start = null;
        do {
            String from = start;
            var page = client.listTables(b -> b.exclusiveStartTableName(from)).join();
            page.tableNames().stream().filter(naming::hasOurPrefix).forEach(names::add);
            start = page.lastEvaluatedTableName();
        } while (start != null);
        return names;
    }

    /** One line per table, the total, and the one-on-demand-table comparison. */
    static String render(List<TableCost> tables, Prices prices) {
        StringBuilder sb = new StringBuilder(String.format(
                Locale.ROOT,
                "%-40s %-9s %-12s %12s %14s %12s%n",
                "table",
                "tier",
                "WCU/RCU",
                "items",
                "bytes",
                "$/month"));
        double total = 0;
        long items = 0;
        long bytes = 0;
        for (TableCost t : tables) {
            sb.append(String.format(
                    Locale.ROOT,
                    "%-40s %-9s %-12s %,12d %,14d %12.2f%s%n",
                    t.table(),
                    t.tier(),
                    t.capacity(),
                    t.items(),
                    t.bytes(),
                    t.monthly().total(),
                    t.onDemandLimits().isEmpty() ? "" : "  " + t.onDemandLimits()));
            total += t.monthly().total();
            items += t.items();
            bytes += t.bytes();
        }
        sb.append(String.format(
                Locale.ROOT,
                "total: $%,.2f/month for %d tables, %,d items, %,d bytes"
                        + " (on-demand tables: storage only, their requests are billed as they happen)%n",
                total,
                tables.size(),
                items,
                bytes));
        long wcuPerItem = items == 0 ? 0 : Math.max(1, (bytes / items + 1023) / 1024);
        double storage = bytes / 1e9 * prices.storageGbMonth();
        double writes = items * wcuPerItem / 1e6 * prices.writeRequestsPerMillion();
        sb.append(String.format(
                Locale.ROOT,
                "one on-demand table: $%,.2f/month storage + $%,.2f once to write the %,d items" + " (%d WCU each)%n",
                storage,
                writes,
                items,
                wcuPerItem));
        return sb.toString();
    }
}
