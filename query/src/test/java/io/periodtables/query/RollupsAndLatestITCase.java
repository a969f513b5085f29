package io.periodtables.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.dynamodb.LatestTable;
import io.periodtables.core.item.Rollups;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.query.cli.QueryCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * {@code rollup}, {@code range --every} and {@code latest} against dynalite, on items written in
 * the layout of {@link Rollups} and {@link LatestTable}: hourly rollups tables for 10:00 and
 * 11:00 holding PT1M and PT1H buckets, a latest table of six devices, and a second prefix
 * without a latest table whose newest readings are found in its period table.
 */
class RollupsAndLatestITCase {

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final Duration HOUR = Duration.ofHours(1);

    private static DynamoDbClient client;
    private static DynamoDbAsyncClient async;
    private static PeriodTablesConfig config;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeAll
    static void writeRollupsAndLatest() {
        client = DYNAMODB.client();
        config = ConfigLoader.fromMap(
                Map.of(
                        "tables.prefix", "r",
                        "tables.period", "PT1H",
                        "dynamodb.endpoint", DYNAMODB.endpoint().toString()),
                true);
        async = DynamoDbClients.of(config).newAsyncClient(8);
        SinkWrittenTables.create(client, "r_rollups_2025-03-10T1000", "r_rollups_2025-03-10T1100");
        for (String minute : List.of("10:58", "10:59", "11:00", "11:01", "11:02")) {
            put(bucket("dev-7", MINUTE, minute, 2, Map.of("temp", stats(2, "21", "22", "43"), "hum", stats(1, "40"))));
        }
        put(bucket("dev-8", MINUTE, "11:00", 1, Map.of("temp", stats(1, "30"))));
        for (String hour : List.of("10:00", "11:00")) {
            put(bucket("dev-7", HOUR, hour, 120, Map.of("temp", stats(120, "19.5", "25", "2640"))));
        }

        LatestTable latest = new LatestTable(async, config.naming());
        latest.ensure().join();
        for (String device : List.of("dev-9", "dev-3", "dev-8", "dev-1", "dev-5")) {
            latest.putIfNewer(reading(device, "2025-03-10T11:30:00Z", "r_2025-03-10T1100", 1))
                    .join();
        }
        latest.putIfNewer(reading("dev-7", "2025-03-10T11:59:00Z", "r_2025-03-10T1100", 2))
                .join();
        assertThat(latest.putIfNewer(reading("dev-7", "2025-03-10T11:58:00Z", "r_2025-03-10T1100", 1))
                        .join())
                .isFalse(); // older than the stored one: the stored one stays

        SinkWrittenTables.create(client, "r2_2025-03-10T1000");
        for (int i = 0; i < 3; i++) {
            Map<String, AttributeValue> item = new TreeMap<>(
                    reading("dev-7", "2025-03-10T10:1" + i + ":00Z", "", i).reading());
            item.put("pk", AttributeValue.fromS("dev-7"));
            item.put("sk", AttributeValue.fromS(sortKey("2025-03-10T10:1" + i + ":00Z")));
            client.putItem(b -> b.tableName("r2_2025-03-10T1000").item(item));
        }
    }

    @AfterAll
    static void closeClient() {
        async.close();
    }

    private static Rollups.Bucket bucket(
            String device, Duration grain, String hhmm, long readings, Map<String, Rollups.FieldStats> fields) {
        return new Rollups.Bucket(
                device, grain, Instant.parse("2025-03-10T" + hhmm + ":00Z").toEpochMilli(), readings, fields);
    }

    private static Rollups.FieldStats stats(long count, String min, String max, String sum) {
        return new Rollups.FieldStats(
                count,
                new BigDecimal(min),
                new BigDecimal(max),
                new BigDecimal(sum),
                new BigDecimal(min),
                new BigDecimal(max));
    }

    private static Rollups.FieldStats stats(long count, String value) {
        return stats(
                count,
                value,
                value,
                new BigDecimal(value).multiply(BigDecimal.valueOf(count)).toString());
    }

    private static void put(Rollups.Bucket bucket) {
        String table =
                config.naming().rollupsTable(config.calendar().periodOf(Instant.ofEpochMilli(bucket.startMillis())));
        client.putItem(b -> b.tableName(table).item(bucket.item(null)));
    }

    private static String sortKey(String instant) {
        return WriteSharding.sortKeyInstant(Instant.parse(instant).toEpochMilli()) + "#0000000a";
    }

    private static LatestTable.Latest reading(String device, String instant, String table, int i) {
        return new LatestTable.Latest(
                device,
                sortKey(instant),
                table,
                Map.of("i", AttributeValue.fromN(Integer.toString(i)), "temp", AttributeValue.fromN("21.5")));
    }

    private int run(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        if (!all.contains("--tables.prefix")) {
            all.addAll(List.of("--tables.prefix", "r"));
        }
        all.addAll(List.of(
                "--tables.period",
                "PT1H",
                "--dynamodb.endpoint",
                DYNAMODB.endpoint().toString()));
        out.reset();
        err.reset();
        return QueryCli.run(
                all.toArray(String[]::new),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private List<String> lines() {
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void rollupPrintsTheBucketsOfOneGrainAcrossTwoPeriodsInTimeOrder() {
        assertThat(run(
                        "rollup",
                        "--device",
                        "dev-7",
                        "--from",
                        "2025-03-10T10:58:00Z",
                        "--to",
                        "2025-03-10T12:30:00Z",
                        "--every",
                        "pt1m"))
                .as(err())
                .isZero();

        assertThat(lines())
                .extracting(line -> line.substring(line.indexOf("\"start\":") + 9, line.indexOf("\"start\":") + 33))
                .containsExactly(
                        "2025-03-10T10:58:00.000Z",
                        "2025-03-10T10:59:00.000Z",
                        "2025-03-10T11:00:00.000Z",
                        "2025-03-10T11:01:00.000Z",
                        "2025-03-10T11:02:00.000Z");
        assertThat(lines().get(0))
                .isEqualTo("{\"deviceId\":\"dev-7\",\"grain\":\"PT1M\",\"start\":\"2025-03-10T10:58:00.000Z\","
                        + "\"readings\":2,\"fields\":{"
                        + "\"hum\":{\"count\":1,\"min\":40,\"max\":40,\"avg\":40,\"first\":40,\"last\":40},"
                        + "\"temp\":{\"count\":2,\"min\":21,\"max\":22,\"avg\":21.5,\"first\":21,\"last\":22}}}");
        assertThat(err())
                .contains("5 bucket(s) of PT1M from 2 rollups table(s)")
                .contains("missing rollups table(s): r_rollups_2025-03-10T1200");
    }

    @Test
    void everyPageIsFollowed() {
        try (ReadingsQuery query = new ReadingsQuery(
                config, async, QuerySettings.defaults().withPageSize(1).withTablesInFlight(1), Clock.systemUTC())) {
            RollupResult result = query.rollups(
                    "dev-7", Instant.parse("2025-03-10T10:00:00Z"), Instant.parse("2025-03-10T12:00:00Z"), MINUTE);

            assertThat(result.buckets()).hasSize(5);
            assertThat(result.requests()).isGreaterThanOrEqualTo(5);
        }
    }

    @Test
    void fieldKeepsOneFieldAndTheTableHasARowPerBucketAndField() {
        assertThat(run(
                        "rollup",
                        "--device",
                        "dev-7",
                        "--from",
                        "2025-03-10T10:59:00Z",
                        "--to",
                        "2025-03-10T11:02:00Z",
                        "--every",
                        "PT1M",
                        "--field",
                        "temp",
                        "--format",
                        "table"))
                .as(err())
                .isZero();

        assertThat(lines()).hasSize(4);
        assertThat(lines().get(0).split(" +"))
                .containsExactly("start", "readings", "field", "count", "min", "max", "avg", "first", "last");
        assertThat(lines().get(1).split(" +"))
                .containsExactly("2025-03-10T10:59:00.000Z", "2", "temp", "2", "21", "22", "21.5", "21", "22");
        assertThat(String.join("\n", lines())).doesNotContain("hum").doesNotContain("11:02");
    }

    @Test
    void csvHasSixColumnsPerField() {
        assertThat(run(
                        "rollup",
                        "--device",
                        "dev-7",
                        "--from",
                        "2025-03-10",
                        "--to",
                        "2025-03-11",
                        "--every",
                        "PT1H",
                        "--format",
                        "csv"))
                .as(err())
                .isZero();

        assertThat(lines())
                .containsExactly(
                        "start,deviceId,grain,readings,temp.count,temp.min,temp.max,temp.avg,temp.first,temp.last",
                        "2025-03-10T10:00:00.000Z,dev-7,PT1H,120,120,19.5,25,22,19.5,25",
                        "2025-03-10T11:00:00.000Z,dev-7,PT1H,120,120,19.5,25,22,19.5,25");
    }

    @Test
    void chartDrawsTheMinMaxBandAndTheAverageLineOfEachField(@TempDir Path dir) throws Exception {
        Path chart = dir.resolve("dev-7.svg");

        assertThat(run(
                        "rollup",
                        "--device",
                        "dev-7",
                        "--from",
                        "2025-03-10T10:58:00Z",
                        "--to",
                        "2025-03-10T11:02:00Z",
                        "--every",
                        "PT1M",
                        "--chart",
                        chart.toString()))
                .as(err())
                .isZero();

        String svg = Files.readString(chart);
        assertThat(svg)
                .contains("dev-7: 4 bucket(s) of PT1M", ">temp<", ">hum<", "line: average   band: minimum to maximum")
                .contains("fill:rgb(159,191,239)")
                .contains("stroke:rgb(31,95,191)");
        assertThat(err()).contains("chart: " + chart);
    }

    @Test
    void rangeWithEveryAnswersFromTheRollups() {
        String[] range = {
            "--device", "dev-7", "--from", "2025-03-10T10:00:00Z", "--to", "2025-03-10T12:00:00Z", "--every", "PT1H"
        };
        assertThat(run(Stream.concat(Stream.of("rollup"), Stream.of(range)).toArray(String[]::new)))
                .isZero();
        List<String> rollup = lines();

        assertThat(run(Stream.concat(Stream.of("range"), Stream.of(range)).toArray(String[]::new)))
                .as(err())
                .isZero();

        assertThat(lines()).hasSize(2).isEqualTo(rollup);
    }

    @Test
    void aGrainThatIsNotStoredIsAnErrorNamingTheStoredGrains() {
        assertThat(run("rollup", "--device", "dev-7", "--from", "2025-03-10", "--to", "2025-03-11", "--every", "PT5M"))
                .isEqualTo(2);
        assertThat(err().strip())
                .isEqualTo("No PT5M rollups in r_rollups_2025-03-10T1000 … r_rollups_2025-03-10T1100:"
                        + " r_rollups_2025-03-10T1100 holds PT1H, PT1M (the job's rollups.every)");

        // a device without buckets: the grains are those of another device
        assertThat(run(
                        "range",
                        "--device",
                        "dev-2",
                        "--from",
                        "2025-03-10T11:00:00Z",
                        "--to",
                        "2025-03-10T12:00:00Z",
                        "--every",
                        "PT15M"))
                .isEqualTo(2);
        assertThat(err())
                .contains("No PT15M rollups in r_rollups_2025-03-10T1100: r_rollups_2025-03-10T1100 holds PT1M");
        assertThat(run(
                        "rollup",
                        "--device",
                        "dev-2",
                        "--from",
                        "2025-03-10T11:00:00Z",
                        "--to",
                        "2025-03-10T12:00:00Z",
                        "--every",
                        "PT1M"))
                .isZero();
        assertThat(lines()).isEmpty();
        assertThat(err()).contains("0 bucket(s) of PT1M from 1 rollups table(s)");
    }

    @Test
    void aLongGrainNotYetEndedInTheNewestTableIsAnEmptyAnswerNotAnError() {
        // rollups.every=PT10S,PT1M: the 11:00 period has begun, its first minute has not ended,
        // so its table holds PT10S buckets only; the period before holds both grains
        SinkWrittenTables.create(client, "r3_rollups_2025-03-10T1000", "r3_rollups_2025-03-10T1100");
        Duration tenSeconds = Duration.ofSeconds(10);
        putInto("r3_rollups_2025-03-10T1000", bucket("dev-7", MINUTE, "10:59", 6, Map.of("temp", stats(6, "20"))));
        putInto("r3_rollups_2025-03-10T1000", bucket("dev-7", tenSeconds, "10:59", 1, Map.of("temp", stats(1, "20"))));
        putInto("r3_rollups_2025-03-10T1100", bucket("dev-7", tenSeconds, "11:00", 1, Map.of("temp", stats(1, "21"))));
        String[] range = {
            "--tables.prefix",
            "r3",
            "--device",
            "dev-7",
            "--from",
            "2025-03-10T11:00:00Z",
            "--to",
            "2025-03-10T11:05:00Z"
        };

        assertThat(run(Stream.concat(Stream.of("rollup"), Stream.concat(Stream.of(range), Stream.of("--every", "PT1M")))
                        .toArray(String[]::new)))
                .as(err())
                .isZero();
        assertThat(lines()).isEmpty();
        assertThat(err()).contains("0 bucket(s) of PT1M from 1 rollups table(s)");

        assertThat(run(Stream.concat(Stream.of("rollup"), Stream.concat(Stream.of(range), Stream.of("--every", "PT5M")))
                        .toArray(String[]::new)))
                .isEqualTo(2);
        assertThat(err().strip())
                .isEqualTo("No PT5M rollups in r3_rollups_2025-03-10T1100: r3_rollups_2025-03-10T1100 holds PT10S;"
                        + " r3_rollups_2025-03-10T1000 holds PT10S, PT1M (the job's rollups.every)");
    }

    private static void putInto(String table, Rollups.Bucket bucket) {
        client.putItem(b -> b.tableName(table).item(bucket.item(null)));
    }

    @Test
    void aRangeWithoutRollupsTablesIsAnErrorNamingRollupsEvery() {
        assertThat(run(
                        "range",
                        "--device",
                        "dev-7",
                        "--from",
                        "2025-03-11T00:00:00Z",
                        "--to",
                        "2025-03-11T02:00:00Z",
                        "--every",
                        "PT1H"))
                .isEqualTo(2);
        assertThat(err().strip())
                .isEqualTo("No rollups table for [2025-03-11T00:00:00Z, 2025-03-11T02:00:00Z):"
                        + " r_rollups_2025-03-11T0000 … r_rollups_2025-03-11T0100 do(es) not exist;"
                        + " the job writes them when rollups.every is set, and deletes them with their period tables");

        assertThat(run("range", "--device", "dev-7", "--from", "2025-03-10", "--to", "2025-03-11", "--field", "temp"))
                .isEqualTo(2);
        assertThat(err()).contains("--field selects a rollup field: it needs --every");
    }

    @Test
    void latestReadsOneItemPerDeviceConsistentlyInTheOrderAsked() {
        assertThat(run("latest", "--device", "dev-8", "--device", "dev-x", "--device", "dev-7"))
                .as(err())
                .isZero();

        assertThat(lines())
                .containsExactly(
                        "{\"deviceId\":\"dev-8\",\"timestamp\":\"2025-03-10T11:30:00.000Z\",\"table\":\"r_2025-03-10T1100\","
                                + "\"sk\":\"2025-03-10T11:30:00.000Z#0000000a\",\"payload\":{\"i\":1,\"temp\":21.5}}",
                        "{\"deviceId\":\"dev-7\",\"timestamp\":\"2025-03-10T11:59:00.000Z\",\"table\":\"r_2025-03-10T1100\","
                                + "\"sk\":\"2025-03-10T11:59:00.000Z#0000000a\",\"payload\":{\"i\":2,\"temp\":21.5}}");
        assertThat(err())
                .contains("2 device(s) from r_latest in 4 request(s)")
                .contains("no reading stored for: dev-x");
    }

    @Test
    void allListsTheFleetSortedByDevicePageByPage() {
        try (ReadingsQuery query =
                new ReadingsQuery(config, async, QuerySettings.defaults().withPageSize(2), Clock.systemUTC())) {
            LatestResult fleet = query.latestOfFleet();

            assertThat(fleet.readings())
                    .extracting(StoredReading::deviceId)
                    .containsExactly("dev-1", "dev-3", "dev-5", "dev-7", "dev-8", "dev-9");
            assertThat(fleet.requests()).isGreaterThanOrEqualTo(3);
        }

        assertThat(run("latest", "--all", "--format", "table")).as(err()).isZero();
        assertThat(lines()).hasSize(7);
        assertThat(lines().get(1))
                .startsWith("2025-03-10T11:30:00.000Z  dev-1 ")
                .contains(" r_2025-03-10T1100")
                .contains("  -  ");
        assertThat(err()).contains("6 device(s) from r_latest in 1 request(s)");
    }

    @Test
    void withoutALatestTableTheNewestReadingComesFromThePeriodTables() {
        assertThat(run("latest", "--device", "dev-7", "--tables.prefix", "r2"))
                .as(err())
                .isZero();
        assertThat(lines())
                .singleElement()
                .asString()
                .contains("\"table\":\"r2_2025-03-10T1000\",\"shard\":0,\"sk\":\"2025-03-10T10:12:00.000Z#0000000a\"");
        assertThat(err())
                .contains("1 device(s) from the period tables")
                .contains("note: r2_latest does not exist (latest.enabled=false, or a job older than it)");

        assertThat(run("latest", "--device", "dev-7", "--n", "2", "--tables.prefix", "r2"))
                .as(err())
                .isZero();
        assertThat(lines()).hasSize(2);
        assertThat(lines().get(1)).contains("2025-03-10T10:11:00.000Z");

        assertThat(run("latest", "--all", "--tables.prefix", "r2")).isEqualTo(2);
        assertThat(err().strip())
                .isEqualTo("r2_latest does not exist: --all lists the latest table, which the job keeps when"
                        + " latest.enabled is true (the default)");
    }

    @Test
    void latestOptionsThatDoNotGoTogetherAreRefused() {
        assertThat(run("latest")).isEqualTo(2);
        assertThat(err())
                .contains("Missing required argument (specify one of these): (--device=ID [--device=ID]... | --all)");
        assertThat(run("latest", "--all", "--device", "dev-7")).isEqualTo(2);
        assertThat(err()).contains("mutually exclusive");
        assertThat(run("latest", "--all", "--n", "2")).isEqualTo(2);
        assertThat(err()).contains("--n reads the newest readings of each --device: not with --all");
        assertThat(run("latest", "--device", "dev-7", "--chart", "x.svg")).isEqualTo(2);
        assertThat(err()).contains("--chart draws a device's readings over time: it needs --n");
    }
}
