package io.periodtables.local;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacitySizing;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.dynamodb.DynamoDbFailure;
import io.periodtables.core.period.TableNaming;
import io.periodtables.core.period.TableNaming.TableRef;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.S3Emulator;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.Select;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * The end of a local run: how it ended and the savepoint, the tables of the configured prefix
 * with their item counts, capacity tier and capacity, the totals and rate, where the data is and
 * the archived periods when {@code archive.path} is set, and the {@code query} commands that read
 * one device back ({@link SampleQueries}).
 */
final class TableSummary {
    /** How long counting a table's items waits out its throttled reads. */
    private static final Duration COUNT_PATIENCE = Duration.ofMinutes(1);

    private final PeriodTablesConfig config;
    private final boolean localData;
    /** The S3 emulator that holds the archive, or null. */
    private final S3Emulator archiveS3;

    /**
     * @param localData true when the data is in the local run's dynalite
     * @param archiveS3 the local S3 emulator that holds the archive, or null
     */
    TableSummary(PeriodTablesConfig config, boolean localData, S3Emulator archiveS3) {
        this.config = config;
        this.localData = localData;
        this.archiveS3 = archiveS3;
    }

    void print(LocalCluster.Outcome outcome, PrintStream out) {
        out.println();
        out.println(outcome.ending()
                + (outcome.savepoint() != null ? " The source stopped and the pipeline drained." : ""));
        if (outcome.failure() != null) {
            out.println("Failure: " + outcome.failure());
        }
        if (outcome.savepoint() != null) {
            out.println("Savepoint: " + outcome.savepoint());
            out.println("  resume with ./run-local --from-savepoint " + outcome.savepoint()
                    + " (its settings are saved with it)");
        }
        TableNaming naming = config.naming();
        List<TableRef> periods = new ArrayList<>();
        String sample;
        long total = 0;
        try (DynamoDbAsyncClient client = DynamoDbClients.of(config).newAsyncClient(4)) {
            List<String> tables = new ArrayList<>();
            client.listTablesPaginator(b -> b.build())
                    .tableNames()
                    .subscribe(tables::add)
                    .join();
            // period, late and rejected tables hold the readings; the latest and rollups tables are derived from them
            List<String> derived = tables.stream()
                    .filter(t -> t.equals(naming.latestTable())
                            || naming.parse(t)
                                    .filter(r -> r.kind() == TableRef.Kind.ROLLUPS)
                                    .isPresent())
                    .sorted()
                    .collect(Collectors.toList());
            tables = tables.stream()
                    .filter(t -> naming.parse(t)
                            .filter(r -> r.kind() != TableRef.Kind.ROLLUPS)
                            .isPresent())
                    .sorted()
                    .collect(Collectors.toList());
            if (tables.isEmpty()) {
                out.println("Nothing was written: no table with prefix '" + naming.prefix() + "' exists.");
                return;
            }
            tables.forEach(t -> naming.parse(t)
                    .filter(r -> r.kind() == TableRef.Kind.PERIOD)
                    .ifPresent(periods::add));
            // The sample device's queries run before the item counts: a count is a Scan of the whole table, which
            // spends its reads, and a table lowered to 1 RCU in a dynalite started on the data again (a resume's)
            // has a second's worth: the query after such a Scan was refused for minutes, past its 6 attempts.
            sample = periods.isEmpty() ? "" : new SampleQueries(config, archiveS3).print(periods);
            out.println();
            out.printf("%-40s %12s  %-9s %s%n", "table", "items", "tier", "WCU/RCU");
            Map<String, Long> items = new LinkedHashMap<>();
            Map<String, Capacity> capacities = new LinkedHashMap<>();
            for (String table : tables) {
                items.put(table, countItems(client, table));
                capacities.put(
                        table,
                        capacity(client.describeTable(b -> b.tableName(table))
                                .join()
                                .table()));
            }
            // The open period tables, all at the current tier and capacity, told apart by their readings: the
            // last one holding any is the open one, the ones after it the rotation prebuilt ahead.
            String open = tables.stream()
                    .filter(t -> isPeriod(naming, t) && items.get(t) > 0)
                    .reduce((a, b) -> b)
                    .orElse(null);
            for (String table : tables) {
                long count = items.get(table);
                total += count;
                Capacity capacity = capacities.get(table);
                String tier = isPeriod(naming, table) ? tierOf(capacity) : "";
                String role = "";
                if (tier.equals(CapacityTier.CURRENT.name()) && open != null) {
                    if (table.equals(open)) {
                        role = "  (open: the newest readings)";
                    } else if (table.compareTo(open) > 0) {
                        role = "  (next, prebuilt: no reading yet)";
                    }
                }
                out.printf("%-40s %,12d  %-9s %s%s%n", table, count, tier, capacity, role);
            }
            out.printf("%-40s %,12d%n", "total", total);
            if (!derived.isEmpty()) {
                out.println("derived (not in the total): each device's newest reading, rollup buckets");
                for (String table : derived) {
                    TableDescription d =
                            client.describeTable(b -> b.tableName(table)).join().table();
                    out.printf("%-40s %,12d  %-9s %s%n", table, countItems(client, table), "", capacity(d));
                }
            }
        }
        RunCounts c = outcome.counts();
        out.println();
        out.printf(
                "in %,d = written %,d + late %,d + rejected %,d%s%n",
                c.in(),
                c.written(),
                c.late(),
                c.rejected(),
                c.inFlight() == 0 ? "" : String.format(" + %,d not written", c.inFlight()));
        long before = total - c.written() - c.late() - c.rejected();
        if (before > 0) {
            // a resume goes on in its run's tables, which hold what the run stored before it too
            out.printf("the total %,d includes %,d readings stored before this run%n", total, before);
        }
        WriteUnitsSummary.print(naming, out);
        out.printf(
                "%,.0f readings/s over %.1f s (drained in %.1f s)",
                // what the job took in during the run's seconds: with the Kinesis fleet, what it read while the
                // fleet put, so that a job behind the stream shows here, not only in the catch-up after the stop
                outcome.inBySeconds() / Math.max(outcome.seconds(), 0.001), outcome.seconds(), outcome.drainSeconds());
        out.println(
                outcome.firstTableSeconds() == null
                        ? ""
                        : String.format("; first table ready %.1f s after start", outcome.firstTableSeconds()));
        String endpoint = config.dynamoDbEndpoint()
                .map(Object::toString)
                .orElse("DynamoDB in " + config.get(ConfigKeys.AWS_REGION));
        out.println("Data: "
                + (localData
                        ? "dynalite at " + endpoint + ", files in " + Dynalite.LOCAL_RUN_DATA
                                + " (a resume from the savepoint above keeps them; a new run starts empty)"
                        : endpoint));
        config.find(ConfigKeys.ARCHIVE_PATH).ifPresent(path -> {
            ArchiveSummary.print(path, out);
            if (archiveS3 != null) {
                out.println("DuckDB reads it from the S3 emulator at " + archiveS3.endpoint()
                        + " while it runs, with its httpfs extension"
                        + " (once per machine, a download: duckdb -c \"INSTALL httpfs\"):");
                out.println("  " + LocalS3.duckDbCommand(archiveS3, path));
            }
        });
        out.print(sample);
    }

    private static boolean isPeriod(TableNaming naming, String table) {
        return naming.parse(table).filter(r -> r.kind() == TableRef.Kind.PERIOD).isPresent();
    }

    private String tierOf(Capacity capacity) {
        List<String> tiers = new ArrayList<>();
        for (CapacityTier tier : CapacityTier.values()) {
            if (config.effectiveCapacity(tier).equals(capacity)) {
                tiers.add(tier.name());
            }
        }
        if (tiers.isEmpty() && new CapacitySizing(config).isOpen(capacity)) {
            return CapacityTier.CURRENT.name(); // sized from the observed load
        }
        return tiers.isEmpty() ? "?" : String.join("|", tiers);
    }

    /**
     * The table's items: a COUNT Scan, page after page. A throttled page waits and is asked again,
     * for up to {@link #COUNT_PATIENCE}: a Scan is charged after it is answered, so a table lowered
     * to 1 RCU (a resume's dynalite gives it a second's worth of reads at its start) refuses the next
     * read until the previous one's units are paid back, one a second.
     */
    private static long countItems(DynamoDbAsyncClient client, String table) {
        long count = 0;
        Map<String, AttributeValue> start = null;
        long deadline = System.nanoTime() + COUNT_PATIENCE.toNanos();
        long wait = 100;
        do {
            ScanRequest.Builder request = ScanRequest.builder().tableName(table).select(Select.COUNT);
            if (start != null) {
                request.exclusiveStartKey(start);
            }
            ScanResponse page;
            try {
                page = client.scan(request.build()).join();
            } catch (CompletionException e) {
                if (DynamoDbFailure.classify(e) != DynamoDbFailure.Kind.THROTTLED || System.nanoTime() > deadline) {
                    throw e;
                }
                sleep(wait);
                wait = Math.min(2_000, wait * 2);
                continue;
            }
            wait = 100;
            count += page.count();
            start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (start != null);
        return count;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while counting items", e);
        }
    }

    private static Capacity capacity(TableDescription d) {
        ProvisionedThroughputDescription p = d.provisionedThroughput();
        boolean onDemand = d.billingModeSummary() != null
                && "PAY_PER_REQUEST".equals(d.billingModeSummary().billingModeAsString());
        if (onDemand || p == null || p.writeCapacityUnits() == null || p.writeCapacityUnits() == 0) {
            return Capacity.ON_DEMAND;
        }
        return new Capacity(p.writeCapacityUnits(), p.readCapacityUnits(), false);
    }
}
