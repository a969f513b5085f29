package io.periodtables.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.Dynalite;
import io.periodtables.job.input.FleetGenerator;
import io.periodtables.rotation.Rotation;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The summary of a resumed run, whose dynalite starts on the data again: a period table lowered to
 * 1/1 has a second's worth of reads there, and the summary both counts its items (a Scan of the
 * whole table) and draws the sample device from it. The drawing must not find the table's reads
 * spent by the count.
 */
class TableSummaryITCase {

    @Test
    void theSummarysChartReadsALoweredTableOfAResumedRun(@TempDir Path data) throws Exception {
        Instant start = Instant.parse("2026-11-28T09:30:00Z");
        Map<String, String> keys = new HashMap<>(Map.of(
                "tables.prefix", "summary",
                "tables.period", "PT1M",
                "tables.shards", "1",
                "generator.devices", "10",
                "generator.start", start.toString()));
        String table;
        try (Dynalite first = Dynalite.launcher().dataDir(data).start()) {
            keys.put("dynamodb.endpoint", first.endpoint().toString());
            PeriodTablesConfig config = ConfigLoader.fromMap(keys, true);
            table = config.naming().periodTableOf(start);
            Rotation.prebuild(config, start, start).join();
            DynamoDbClient client = first.syncClient();
            // ~400 KB, one Scan page: 4,000 readings of ~100 B, 400 of the sample device
            String padding = "x".repeat(40);
            DateTimeFormatter millis =
                    DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
            List<WriteRequest> batch = new ArrayList<>();
            for (int n = 0; n < 4_000; n++) {
                String device = FleetGenerator.deviceId(n % 10);
                String at = millis.format(start.plusMillis(n * 10L));
                batch.add(WriteRequest.builder()
                        .putRequest(PutRequest.builder()
                                .item(Map.of(
                                        "pk", AttributeValue.fromS(device),
                                        "sk", AttributeValue.fromS(at + "#0000000" + (n % 10)),
                                        "temperature", AttributeValue.fromN("21.5"),
                                        "note", AttributeValue.fromS(padding)))
                                .build())
                        .build());
                if (batch.size() == 25) {
                    List<WriteRequest> items = List.copyOf(batch);
                    client.batchWriteItem(b -> b.requestItems(Map.of(table, items)));
                    batch.clear();
                    Thread.sleep(40);
                }
            }
            client.updateTable(b -> b.tableName(table)
                    .provisionedThroughput(t -> t.writeCapacityUnits(1L).readCapacityUnits(1L)));
            // dynalite answers UPDATING and lowers the table a moment later: the resume must find it lowered.
            await("the table ACTIVE at 1/1").atMost(Duration.ofSeconds(30)).until(() -> {
                TableDescription d =
                        client.describeTable(b -> b.tableName(table)).table();
                return d.tableStatus() == TableStatus.ACTIVE
                        && d.provisionedThroughput().readCapacityUnits() == 1L;
            });
        }

        Path local = Path.of(".flink-local");
        boolean existed = Files.exists(local);
        Files.createDirectories(local);
        try (Dynalite resumed = Dynalite.launcher().dataDir(data).start()) {
            keys.put("dynamodb.endpoint", resumed.endpoint().toString());
            PeriodTablesConfig config = ConfigLoader.fromMap(keys, true);
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            new TableSummary(config, true, null)
                    .print(
                            new LocalCluster.Outcome(
                                    config,
                                    "Stopped after PT1S.",
                                    null,
                                    null,
                                    RunCounts.now(config.naming()),
                                    0,
                                    1,
                                    0,
                                    null),
                            new PrintStream(text, true, StandardCharsets.UTF_8));
            String out = text.toString(StandardCharsets.UTF_8);
            assertThat(out).contains(table + "  ", "Its chart: ").doesNotContain("No chart:");
        } finally {
            if (!existed && Files.exists(local)) {
                try (var files = Files.walk(local)) {
                    files.sorted(Comparator.reverseOrder())
                            .forEach(p -> p.toFile().delete());
                }
            }
        }
    }
}
