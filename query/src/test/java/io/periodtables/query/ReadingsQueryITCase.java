package io.periodtables.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.model.Reading;
import io.periodtables.query.cli.QueryCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code range} and {@code latest} against dynalite, on data the real sink wrote on a
 * MiniCluster: hourly tables with 4 shards and a TTL, three devices, readings on the range's
 * edges, two readings in one millisecond, late readings in the late table of April and one
 * reading stored twice (on time, and again as late after a replay).
 */
class ReadingsQueryITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = SinkWrittenTables.miniCluster();

    private static final Instant FROM = Instant.parse("2025-03-10T10:00:00Z");
    private static final Instant TO = Instant.parse("2025-03-10T13:00:00Z");
    private static final Clock LATE_WRITES = Clock.fixed(Instant.parse("2025-04-02T08:00:00Z"), ZoneOffset.UTC);
    private static final Clock NOW = Clock.fixed(Instant.parse("2025-04-20T00:00:00Z"), ZoneOffset.UTC);

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static Dynalite dynamoDb;
    private static DynamoDbClient client;
    private static PeriodTablesConfig config;
    private static TestFleet fleet;

    @BeforeAll
    static void writeReadingsWithTheSink() throws Exception {
        dynamoDb = DYNAMODB.emulator();
        client = dynamoDb.syncClient();
        config = ConfigLoader.fromMap(
                Map.of(
                        "tables.prefix", "q",
                        "tables.period", "PT1H",
                        "tables.shards", "4",
                        "tables.ttl", "P30D",
                        "dynamodb.endpoint", dynamoDb.endpoint().toString(),
                        "sink.request-timeout", "PT5S"),
                true);
        SinkWrittenTables.create(
                client,
                "q_2025-03-10T0900",
                "q_2025-03-10T1000",
                "q_2025-03-10T1100",
                "q_2025-03-10T1200",
                "q_2025-03-10T1300",
                "q_late_2025-04",
                "q_rejected");
        fleet = new TestFleet(config, FROM);
        SinkWrittenTables.write(config, LATE_WRITES, fleet.records());
    }

    @AfterAll
    static void stopDynamoDb() {
        client.close();
    }

    private static QueryResult range(QuerySettings settings, String device, Instant from, Instant to) {
        try (DynamoDbAsyncClient async = DynamoDbClients.of(config).newAsyncClient(16);
                ReadingsQuery query = new ReadingsQuery(config, async, settings, NOW)) {
            return query.range(device, from, to);
        }
    }

    @Test
    void rangeOverThreePeriodsFourShardsAndALateTableReturnsExactlyTheDevicesReadingsInOrder() {
        QueryResult result = range(QuerySettings.defaults(), "dev-7", FROM, TO);

        List<Reading> expected = fleet.expected("dev-7", FROM, TO);
        assertThat(result.readings()).extracting(StoredReading::sk).containsExactlyElementsOf(fleet.sortKeys(expected));
        assertThat(result.readings())
                .extracting(StoredReading::payloadJson)
                .containsExactlyElementsOf(
                        expected.stream().map(Reading::payloadJson).toList());
        assertThat(result.readings()).allSatisfy(r -> {
            assertThat(r.deviceId()).isEqualTo("dev-7");
            assertThat(r.ttl()).isEqualTo(r.eventTime().getEpochSecond() + 30 * 86_400L);
        });
        assertThat(result.readings().stream().map(StoredReading::shard).collect(Collectors.toSet()))
                .isEqualTo(Set.of(0, 1, 2, 3));
        assertThat(result.readings())
                .filteredOn(r -> r.table().equals("q_late_2025-04"))
                .extracting(StoredReading::payloadJson)
                .containsExactly(
                        "{\"i\":5,\"temp\":25.5}",
                        "{\"i\":3000,\"late\":true}",
                        "{\"i\":3001,\"late\":true}",
                        "{\"i\":3002,\"late\":true}");

        QueryReport report = result.report();
        assertThat(report.periodTablesRead())
                .containsExactly("q_2025-03-10T1000", "q_2025-03-10T1100", "q_2025-03-10T1200");
        assertThat(report.lateTablesRead()).containsExactly("q_late_2025-04");
        assertThat(report.missingPeriodTables()).isEmpty();
        assertThat(report.readings()).isEqualTo(expected.size());
        assertThat(report.duplicatesDropped()).isEqualTo(1);
        assertThat(report.notes())
                .singleElement()
                .asString()
                .startsWith(
                        "shard count 4 from tables.shards: no period-tables.shards tag"); // the test creates the tables
        // untagged
    }

    @Test
    void smallPagesReturnTheSameReadingsWithMoreRequests() {
        QueryResult whole = range(QuerySettings.defaults(), "dev-7", FROM, TO);
        QueryResult paged = range(QuerySettings.defaults().withPageSize(3).withTablesInFlight(1), "dev-7", FROM, TO);

        assertThat(paged.readings()).isEqualTo(whole.readings());
        assertThat(paged.report().requests()).isGreaterThan(whole.report().requests() + 30);
    }

    @Test
    void periodTablesThatAreGoneAreReportedAndTheOthersStillRead() {
        SinkWrittenTables.create(client, "q_2025-03-10T0800");
        client.deleteTable(b -> b.tableName("q_2025-03-10T0800"));
        DYNAMODB.awaitGone("q_2025-03-10T0800"); // DynamoDB lists a deleted table while DELETING
        Instant from = Instant.parse("2025-03-10T07:30:00Z");
        Instant to = Instant.parse("2025-03-10T10:30:00Z");

        QueryResult result = range(QuerySettings.defaults(), "dev-7", from, to);

        assertThat(result.report().missingPeriodTables()).containsExactly("q_2025-03-10T0700", "q_2025-03-10T0800");
        assertThat(result.report().periodTablesRead()).containsExactly("q_2025-03-10T0900", "q_2025-03-10T1000");
        assertThat(result.readings())
                .extracting(StoredReading::sk)
                .containsExactlyElementsOf(fleet.sortKeys(fleet.expected("dev-7", from, to)));
        assertThat(result.readings())
                .extracting(StoredReading::payloadJson)
                .contains("{\"i\":3003,\"late\":true}", "{\"i\":2001,\"temp\":21.5}");
    }

    @Test
    void withTheArchiveARangeReturnsTheSameReadingsAfterItsTablesWereDeleted(@TempDir Path archive) throws Exception {
        PeriodTablesConfig archived = config.with(TableKeys.TABLES_PREFIX, "qa")
                .with(ConfigKeys.ARCHIVE_PATH, archive.toUri().toString());
        SinkWrittenTables.create(
                client,
                "qa_2025-03-10T0900",
                "qa_2025-03-10T1000",
                "qa_2025-03-10T1100",
                "qa_2025-03-10T1200",
                "qa_2025-03-10T1300",
                "qa_late_2025-04",
                "qa_rejected");
        SinkWrittenTables.write(archived, LATE_WRITES, fleet.records());
        List<QueryResult> before = new ArrayList<>();
        for (String device : List.of("dev-7", "dev-8")) {
            before.add(rangeWithArchive(archived, archive, device));
        }

        List<String> deleted = List.of("qa_2025-03-10T1000", "qa_2025-03-10T1100", "qa_late_2025-04");
        deleted.forEach(gone -> client.deleteTable(b -> b.tableName(gone)));
        DYNAMODB.awaitGone(deleted.toArray(String[]::new)); // DynamoDB lists a deleted table while DELETING

        for (int d = 0; d < 2; d++) {
            QueryResult after = rangeWithArchive(
                    archived, archive, List.of("dev-7", "dev-8").get(d));
            assertThat(after.readings()).isNotEmpty().isEqualTo(before.get(d).readings());
            assertThat(after.report().missingPeriodTables()).isEmpty();
            assertThat(after.report().duplicatesDropped())
                    .isEqualTo(before.get(d).report().duplicatesDropped());
            assertThat(after.report().notes())
                    .anySatisfy(note -> assertThat(note)
                            .startsWith("table deleted, read from the archive " + archive.toUri())
                            .contains("qa_2025-03-10T1000", "qa_2025-03-10T1100", "qa_late_2025-04"));
        }
        assertThat(before.get(0).readings())
                .extracting(StoredReading::sk)
                .containsExactlyElementsOf(fleet.sortKeys(fleet.expected("dev-7", FROM, TO)));
    }

    private static QueryResult rangeWithArchive(PeriodTablesConfig archived, Path archive, String device) {
        try (DynamoDbAsyncClient async = DynamoDbClients.of(archived).newAsyncClient(16);
                ReadingsQuery query = new ReadingsQuery(archived, async, QuerySettings.defaults(), NOW)) {
            return query.withArchive(archive.toUri().toString()).range(device, FROM, TO);
        }
    }

    @Test
    void latestWalksPeriodsBackwardsAndIncludesNewerLateReadings() {
        try (DynamoDbAsyncClient async = DynamoDbClients.of(config).newAsyncClient(16);
                ReadingsQuery query = new ReadingsQuery(
                        config, async, QuerySettings.defaults().withTablesInFlight(1), NOW)) {
            List<Reading> newestFirst =
                    new ArrayList<>(fleet.expected("dev-7", Instant.EPOCH, Instant.parse("2030-01-01T00:00:00Z")));
            Collections.reverse(newestFirst);

            QueryResult three = query.latest("dev-7", 3);
            QueryResult all = query.latest("dev-7", 1000);

            assertThat(three.readings())
                    .extracting(StoredReading::sk)
                    .containsExactlyElementsOf(fleet.sortKeys(newestFirst.subList(0, 3)));
            assertThat(three.readings().get(0).payloadJson()).isEqualTo("{\"i\":2002,\"temp\":22.5}");
            assertThat(three.readings().get(1).payloadJson()).isEqualTo("{\"i\":3002,\"late\":true}");
            assertThat(three.report().periodTablesRead()).containsExactly("q_2025-03-10T1300", "q_2025-03-10T1200");
            assertThat(all.readings())
                    .extracting(StoredReading::sk)
                    .containsExactlyElementsOf(fleet.sortKeys(newestFirst));
        }
    }

    @Test
    void cliPrintsTheRangeAsJsonLinesAndTheReportOnStandardError() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = QueryCli.run(
                new String[] {
                    "range",
                    "--device",
                    "dev-8",
                    "--from",
                    "2025-03-10T11:00:00+01:00",
                    "--to",
                    "2025-03-10T12:30:00Z",
                    "--dynamodb.endpoint",
                    dynamoDb.endpoint().toString(),
                    "--tables.prefix",
                    "q",
                    "--tables.period",
                    "PT1H",
                    "--tables.shards",
                    "4",
                    "--tables.ttl",
                    "P30D"
                },
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        List<Reading> expected =
                fleet.expected("dev-8", Instant.parse("2025-03-10T10:00:00Z"), Instant.parse("2025-03-10T12:30:00Z"));
        assertThat(lines).hasSize(expected.size());
        for (int i = 0; i < lines.size(); i++) {
            assertThat(lines.get(i))
                    .contains("\"deviceId\":\"dev-8\"")
                    .contains("\"sk\":\"" + fleet.sortKeys(expected).get(i) + "\"")
                    .endsWith("\"payload\":" + expected.get(i).payloadJson() + "}");
        }
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains(expected.size() + " reading(s) from 3 period table(s) and 1 late table(s)");
    }

    /** A chart that would not be SVG: one line, exit 2, before any reading is printed; no file written. */
    @Test
    void cliRefusesAChartThatIsNotSvgBeforePrintingAnything(@TempDir Path dir) {
        Path png = dir.resolve("dev-8.png");

        assertRefused(List.of("--chart", png.toString()), "--chart dev-8.png: only SVG is written");
        assertThat(png).doesNotExist();
    }

    /** The archive is only opened for a missing table: a value nobody can read is refused before that. */
    @Test
    void cliRefusesAnArchiveItCannotReadBeforePrintingAnything() {
        assertRefused(List.of("--archive", "not a uri"), "--archive 'not a uri': expected the job's archive.path");
        assertRefused(
                List.of("--archive", "archive/readings"),
                "--archive 'archive/readings': expected the job's archive.path");
        assertRefused(
                List.of("--archive", "s4://bucket/readings"),
                "--archive 's4://bucket/readings': Flink has no file system for the scheme 's4'");
    }

    private static void assertRefused(List<String> options, String message) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of(
                "range",
                "--device",
                "dev-8",
                "--from",
                FROM.toString(),
                "--to",
                TO.toString(),
                "--dynamodb.endpoint",
                dynamoDb.endpoint().toString(),
                "--tables.prefix",
                "q",
                "--tables.period",
                "PT1H",
                "--tables.shards",
                "4"));
        args.addAll(options);

        int status = QueryCli.run(
                args.toArray(String[]::new),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        String printed = err.toString(StandardCharsets.UTF_8);
        assertThat(status).as(printed).isEqualTo(2);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(printed).startsWith(message).hasLineCount(1);
    }

    @Test
    void cliWritesTheRangeAsCsvAndDrawsItWithBoundariesAndLateReadings(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path chart = dir.resolve("dev-8.svg");

        int status = QueryCli.run(
                new String[] {
                    "range",
                    "--device",
                    "dev-8",
                    "--from",
                    FROM.toString(),
                    "--to",
                    TO.toString(),
                    "--format",
                    "csv",
                    "--chart",
                    chart.toString(),
                    "--dynamodb.endpoint",
                    dynamoDb.endpoint().toString(),
                    "--tables.prefix",
                    "q",
                    "--tables.period",
                    "PT1H",
                    "--tables.shards",
                    "4",
                    "--tables.ttl",
                    "P30D"
                },
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        List<String> rows = out.toString(StandardCharsets.UTF_8).lines().toList();
        List<String> header = List.of(rows.get(0).split(","));
        assertThat(header.subList(0, 6)).containsExactly("timestamp", "deviceId", "table", "shard", "sk", "ttl");
        assertThat(rows).hasSize(1 + fleet.expected("dev-8", FROM, TO).size());
        // Each late reading is crossed once per numeric attribute it has.
        long lateMarks = 0;
        for (String row : rows.subList(1, rows.size())) {
            String[] cells = row.split(",", -1);
            if (cells[2].startsWith("q_late_")) {
                for (int c = 6; c < cells.length; c++) {
                    lateMarks += cells[c].matches("-?[0-9.]+") ? 1 : 0;
                }
            }
        }
        assertThat(lateMarks).isPositive();
        String svg = Files.readString(chart);
        assertThat(svg)
                .contains("dev-8: " + (rows.size() - 1) + " readings", ">2025-03-10T1100<", ">2025-03-10T1200<")
                .doesNotContain(">2025-03-10T1000<");
        assertThat(svg.split("stroke:rgb\\(204,34,34\\)", -1).length - 1L).isEqualTo(lateMarks);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("chart: " + chart);
    }
}
