package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.TableNaming;
import io.periodtables.emulators.CountingProxy;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.Kinesalite;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordResponse;

/**
 * The job as the jar runs it ({@link PeriodTablesJob#configure}, {@link PeriodTablesTopology#build})
 * on a MiniCluster, reading a real Kinesis emulator (kinesalite, a stream of 2 shards created through
 * the SDK, from TRIM_HORIZON) and writing to dynalite. Readings of four devices across four
 * hourly periods, with duplicates, an eventId resend, an array record, malformed records and late
 * readings, must end up as exactly the expected items of the period, late and rejected tables.
 *
 * <p>Late readings are only late against the watermark at their arrival, which is the minimum of
 * the two parse subtasks' watermarks. So they are put in a second phase, after a fence that proves
 * both subtasks are far enough: the rotation has prebuilt the 11:00 table, which it does once the
 * job's global watermark passes 10:45 (rollover minus {@code rotation.lead}); by then the 08:00 and
 * 09:00 windows are past their grace (end + 5 minutes), and the 10:00 window is still open.
 *
 * <p>Rejected records name their origin, {@code kinesis:<stream>/<shardId>/<sequenceNumber>}, as
 * the put returned it. Kinesis calls of the job go through a {@link CountingProxy}; once everything
 * is written, the test measures what the idle source costs and logs it.
 */
class KinesisEndToEndITCase {
    private static final Logger LOG = LoggerFactory.getLogger(KinesisEndToEndITCase.class);

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .setConfiguration(LoopbackFlink.configuration("0"))
            .build());

    private static final String STREAM = "device-readings";
    /** Explicit hash keys: the stream's two shards split the 128-bit hash range in halves. */
    private static final String SHARD_0 = "0";

    private static final String SHARD_1 = BigInteger.ONE.shiftLeft(127).toString();
    private static final Instant T0 = Instant.parse("2025-06-01T08:00:00Z");
    private static final Duration BOUND = Duration.ofSeconds(90);
    private static final Duration IDLE_MEASUREMENT = Duration.ofSeconds(10);

    private static Kinesalite kinesalite;
    private static CountingProxy kinesisProxy;

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static Dynalite dynamoDb;
    private static DynamoDbClient dynamo;
    private static KinesisClient kinesis;

    private PeriodTablesConfig config;
    private ExpectedItems expected;
    /** Where each record put landed, as its origin. */
    private final Map<Put, String> origins = new IdentityHashMap<>();
    /** Rejections of records not put yet; registered with their origin once put. */
    private final List<Runnable> rejectedOncePut = new ArrayList<>();
    /** A stored origin that stands for the expected one: two records that make one rejected item. */
    private final Map<String, String> originAliases = new HashMap<>();

    @BeforeAll
    static void startEmulators() throws Exception {
        kinesalite = Kinesalite.start();
        kinesisProxy = CountingProxy.start(kinesalite.endpoint());
        kinesis = kinesalite.kinesisClient();
        dynamoDb = DYNAMODB.emulator();
        dynamo = dynamoDb.syncClient();
    }

    @AfterAll
    static void stopEmulators() {
        dynamo.close();
        kinesis.close();
        kinesisProxy.close();
        kinesalite.close();
    }

    @Test
    void readingsFromKinesisBecomeExactlyTheExpectedPeriodLateAndRejectedItems() throws Exception {
        String arn = kinesalite.createStream(STREAM, 2);
        config = PeriodTablesJob.configure(
                new String[] {
                    "--source", "kinesis",
                    "--kinesis.stream-arn", arn,
                    "--kinesis.endpoint", kinesisProxy.endpoint().toString(),
                    "--kinesis.initial-position", "TRIM_HORIZON",
                    "--dynamodb.endpoint", dynamoDb.endpoint().toString(),
                    "--tables.prefix", "e2e",
                    "--tables.period", "PT1H",
                    "--tables.shards", "2",
                    "--rollups.every", "PT30M,PT1H",
                    // the latest table is read while the jobs run and after a cancel, which flushes nothing
                    "--latest.interval", "PT1S"
                },
                false);
        TableNaming naming = config.naming();
        expected = new ExpectedItems(config);
        Instant started = Instant.now();

        putOnTimeReadingsAndMalformedRecords();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        PeriodTablesTopology.build(env, config, Clock.systemUTC());
        JobClient job = env.executeAsync("period-tables");
        try {
            String prebuilt = naming.periodTableOf(Instant.parse("2025-06-01T11:00:00Z"));
            boolean fenced = TableContents.eventually(
                    BOUND,
                    () -> periodTablesAsExpected() && rejectedAsExpected() && TableContents.exists(dynamo, prebuilt));
            assertThat(fenced)
                    .as(
                            "phase 1 written and %s prebuilt; period tables %s, rejected %s",
                            prebuilt,
                            TableContents.nonEmptyTables(dynamo, naming).keySet(),
                            rejectedItems().size())
                    .isTrue();

            putLateReadingsAndAResend();
            boolean done = TableContents.eventually(
                    BOUND,
                    () -> periodTablesAsExpected() && lateItems().equals(expected.late()) && rejectedAsExpected());
            assertExpectedTables(naming, started);
            assertThat(done).isTrue();

            assertRollupsAreTheStoredItemsAggregates();

            measureIdlePolling();
            // Nothing arrived late or twice while the job idled.
            assertExpectedTables(naming, started);
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
        assertAReplayLeavesTheLatestTableAsItWas();
    }

    /**
     * The rollups of the buckets that ended by 10:30 (the shards' watermarks are past it) equal the
     * aggregates of the period tables' items, but for one documented difference: dev-b's eventId
     * b-1015 was resent with another payload, the table kept the second, the rollups the first.
     */
    private void assertRollupsAreTheStoredItemsAggregates() throws InterruptedException {
        long ended = Instant.parse("2025-06-01T10:30:00Z").toEpochMilli();
        Map<String, List<Map<String, AttributeValue>>> items = new java.util.TreeMap<>();
        TableContents.nonEmptyTables(dynamo, config.naming()).forEach((table, byKey) -> {
            if (config.naming().parse(table).orElseThrow().kind() == TableNaming.TableRef.Kind.PERIOD) {
                items.put(table, new ArrayList<>(byKey.values()));
            }
        });
        Map<String, String> expectedRollups = RollupCheck.expected(config, items, end -> end <= ended);
        TableContents.eventually(
                BOUND,
                () -> RollupCheck.stored(dynamo, config, end -> end <= ended)
                        .keySet()
                        .equals(expectedRollups.keySet()));
        Map<String, String> stored = RollupCheck.stored(dynamo, config, end -> end <= ended);
        String resent = " dev-b PT30M#2025-06-01T10:00:00.000Z";
        for (Map<String, String> rollups : List.of(stored, expectedRollups)) {
            rollups.replaceAll(
                    (key, value) -> key.endsWith(resent) || key.endsWith(" dev-b PT1H#2025-06-01T10:00:00.000Z")
                            ? value.substring(0, value.indexOf(' ')) // the reading count only
                            : value);
        }
        assertThat(stored)
                .as("rollups of the buckets ended by 10:30")
                .isNotEmpty()
                .isEqualTo(expectedRollups);
    }

    /**
     * A second job from TRIM_HORIZON, without the first one's state, replays every record: the
     * latest table never moves back. Two readings put after the replay started, one per shard,
     * show when both shards have been read through.
     */
    private void assertAReplayLeavesTheLatestTableAsItWas() throws Exception {
        Map<String, String> before = RollupCheck.latest(dynamo, config);
        assertThat(before).containsOnlyKeys("dev-a", "dev-b", "dev-c", "dev-d");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        PeriodTablesTopology.build(env, config, Clock.systemUTC());
        JobClient replay = env.executeAsync("period-tables replay");
        try {
            Instant marker = Instant.parse("2025-06-01T11:05:00Z");
            putAll(List.of(
                    put(SHARD_0, "{\"deviceId\":\"marker-0\",\"timestamp\":\"" + marker + "\",\"temp\":1}"),
                    put(SHARD_1, "{\"deviceId\":\"marker-1\",\"timestamp\":\"" + marker + "\",\"temp\":1}")));
            boolean replayed = TableContents.eventually(BOUND, () -> {
                Map<String, String> latest = RollupCheck.latest(dynamo, config);
                assertThat(latest).as("the latest table during the replay").containsAllEntriesOf(before);
                return latest.keySet().containsAll(List.of("marker-0", "marker-1"));
            });
            assertThat(replayed).as("both shards replayed").isTrue();
            Map<String, String> after = RollupCheck.latest(dynamo, config);
            after.keySet().removeAll(List.of("marker-0", "marker-1"));
            assertThat(after).isEqualTo(before);
        } finally {
            replay.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /** Phase 1: 7 readings per device over 08:05-10:53, duplicates, an array, malformed records. */
    private void putOnTimeReadingsAndMalformedRecords() {
        List<Put> shard0 = new ArrayList<>();
        List<Put> shard1 = new ArrayList<>();
        String[] devices = {"dev-a", "dev-b", "dev-c", "dev-d"};
        int[] minutes = {5, 35, 65, 95, 125, 155, 170};
        for (int m : minutes) {
            for (int i = 0; i < devices.length; i++) {
                List<Put> shard = i < 2 ? shard0 : shard1;
                Instant t = T0.plus(Duration.ofMinutes(m + i));
                if (m == 5 && i == 0) {
                    // Every JSON type: numbers, booleans, lists and maps keep their type; nulls are dropped.
                    shard.add(
                            put(
                                    SHARD_0,
                                    "{\"deviceId\":\"dev-a\",\"timestamp\":\"" + t + "\",\"temp\":21.5,"
                                            + "\"ok\":true,\"tags\":[\"x\",\"y\"],\"meta\":{\"rssi\":-70,\"fw\":\"1.2\"},\"note\":null}"));
                    expected.period(
                            "dev-a",
                            t,
                            null,
                            "{\"meta\":{\"fw\":\"1.2\",\"rssi\":-70},\"ok\":true,\"tags\":[\"x\",\"y\"],\"temp\":21.5}",
                            Map.of(
                                    "temp",
                                    n("21.5"),
                                    "ok",
                                    AttributeValue.fromBool(true),
                                    "tags",
                                    AttributeValue.fromL(List.of(s("x"), s("y"))),
                                    "meta",
                                    AttributeValue.fromM(Map.of("rssi", n("-70"), "fw", s("1.2")))));
                    continue;
                }
                String temp = new BigDecimal(BigInteger.valueOf(200 + m + i), 1)
                        .stripTrailingZeros()
                        .toPlainString();
                Put reading = put(
                        i < 2 ? SHARD_0 : SHARD_1,
                        "{\"deviceId\":\"" + devices[i] + "\",\"timestamp\":\"" + t + "\",\"temp\":" + temp + "}");
                shard.add(reading);
                expected.period(devices[i], t, null, "{\"temp\":" + temp + "}", Map.of("temp", n(temp)));
                if (m == 35 && i == 0) {
                    shard.add(reading); // the same reading twice: one item
                }
            }
            if (m == 65) {
                // The same eventId twice, its instant written two ways: one item.
                Instant t = Instant.parse("2025-06-01T09:10:00Z");
                shard0.add(put(
                        SHARD_0,
                        "{\"deviceId\":\"dev-b\",\"timestamp\":\"2025-06-01T11:10:00+02:00\","
                                + "\"eventId\":\"b-0910\",\"temp\":19.5}"));
                shard0.add(put(
                        SHARD_0,
                        "{\"eventId\":\"b-0910\",\"temp\":19.5,\"timestamp\":" + t.toEpochMilli()
                                + ",\"deviceId\":\"dev-b\"}"));
                expected.period("dev-b", t, "b-0910", "{\"temp\":19.5}", Map.of("temp", n("19.5")));
                // An array record: two readings and an element that is no reading.
                shard1.add(
                        put(
                                SHARD_1,
                                "[{\"deviceId\":\"dev-c\",\"timestamp\":\"2025-06-01T09:20:00Z\",\"temp\":17.25},"
                                        + "{\"deviceId\":\"dev-d\",\"timestamp\":\"2025-06-01T09:21:00Z\",\"temp\":16,\"door\":\"open\"},\"oops\"]"));
                expected.period(
                        "dev-c",
                        Instant.parse("2025-06-01T09:20:00Z"),
                        null,
                        "{\"temp\":17.25}",
                        Map.of("temp", n("17.25")));
                expected.period(
                        "dev-d",
                        Instant.parse("2025-06-01T09:21:00Z"),
                        null,
                        "{\"door\":\"open\",\"temp\":16}",
                        Map.of("temp", n("16"), "door", s("open")));
                Put array = shard1.get(shard1.size() - 1);
                rejectedOncePut.add(() -> expected.rejected(
                        "not-an-object", "\"oops\"".getBytes(StandardCharsets.UTF_8), origins.get(array) + "[2]"));
            }
            if (m == 125) {
                // Resent in phase 2 with another payload: the later write wins.
                shard0.add(
                        put(
                                SHARD_0,
                                "{\"deviceId\":\"dev-b\",\"timestamp\":\"2025-06-01T10:15:00Z\",\"eventId\":\"b-1015\",\"temp\":1}"));
                expected.period(
                        "dev-b",
                        Instant.parse("2025-06-01T10:15:00Z"),
                        "b-1015",
                        "{\"temp\":1}",
                        Map.of("temp", n("1")));
            }
        }
        malformed(shard0, SHARD_0, "not json", "invalid-json");
        Put first = shard0.get(shard0.size() - 1);
        // Twice: one item (its key is the raw's hash), with the origin of either record.
        malformed(shard0, SHARD_0, "not json", "invalid-json");
        Put second = shard0.get(shard0.size() - 1);
        malformed(shard0, SHARD_0, "42", "not-an-object");
        malformed(
                shard0,
                SHARD_0,
                "{\"deviceId\":\"\",\"timestamp\":\"2025-06-01T08:10:00Z\",\"temp\":1}",
                "missing-device");
        malformed(shard1, SHARD_1, "{\"deviceId\":\"dev-c\",\"timestamp\":\"yesterday\",\"temp\":1}", "bad-timestamp");
        malformed(
                shard1,
                SHARD_1,
                "{\"deviceId\":\"dev-c\",\"timestamp\":\"2999-01-01T00:00:00Z\",\"temp\":1}",
                "too-far-future");
        malformed(shard1, SHARD_1, "[]", "empty-array");
        malformed(shard1, SHARD_1, new byte[] {'{', (byte) 0xC3, (byte) 0x28, '}'}, "invalid-json");
        putAll(shard0);
        putAll(shard1);
        rejectedOncePut.forEach(Runnable::run);
        originAliases.put(origins.get(first), origins.get(second));
    }

    /** Phase 2, after the fence: late readings (one twice), the eventId resend, a reading of 11:01. */
    private void putLateReadingsAndAResend() {
        Instant lateA = Instant.parse("2025-06-01T08:40:00Z");
        Put late = put(SHARD_0, "{\"deviceId\":\"dev-a\",\"timestamp\":\"" + lateA + "\",\"temp\":5}");
        Instant lateC = Instant.parse("2025-06-01T09:30:00Z");
        Instant resent = Instant.parse("2025-06-01T10:15:00Z");
        Instant eleven = Instant.parse("2025-06-01T11:01:00Z");
        putAll(List.of(
                late,
                late,
                put(
                        SHARD_0,
                        "{\"deviceId\":\"dev-b\",\"timestamp\":\"" + resent + "\",\"eventId\":\"b-1015\",\"temp\":2}"),
                put(SHARD_0, "{\"deviceId\":\"dev-b\",\"timestamp\":\"" + eleven + "\",\"temp\":30}")));
        putAll(List.of(put(SHARD_1, "{\"deviceId\":\"dev-c\",\"timestamp\":\"" + lateC + "\",\"temp\":6}")));
        expected.late("dev-a", lateA, null, "{\"temp\":5}", Map.of("temp", n("5")));
        expected.late("dev-c", lateC, null, "{\"temp\":6}", Map.of("temp", n("6")));
        expected.period("dev-b", resent, "b-1015", "{\"temp\":2}", Map.of("temp", n("2")));
        expected.period("dev-b", eleven, null, "{\"temp\":30}", Map.of("temp", n("30")));
    }

    private void assertExpectedTables(TableNaming naming, Instant started) {
        Map<String, Map<List<String>, Map<String, AttributeValue>>> written =
                TableContents.nonEmptyTables(dynamo, naming);
        List<String> lateTables =
                written.keySet().stream().filter(naming::isLateTable).toList();
        assertThat(lateTables)
                .as("the late table of the month of the watermark that made them late")
                .containsExactly(naming.lateTable(T0));
        Map<String, Map<List<String>, Map<String, AttributeValue>>> periodTables = TableContents.byTable();
        written.forEach((table, items) -> {
            if (naming.parse(table).orElseThrow().kind() == TableNaming.TableRef.Kind.PERIOD) {
                periodTables.put(table, items);
            }
        });
        assertThat(periodTables).isEqualTo(expected.periodTables());
        assertThat(lateItems()).isEqualTo(expected.late());
        Map<List<String>, Map<String, AttributeValue>> rejected = rejectedItems();
        assertThat(comparable(rejected)).isEqualTo(expected.rejected());
        rejected.values().forEach(item -> {
            assertThat(item.get("reason").s()).isNotBlank();
            assertThat(Instant.parse(item.get("arrivedAt").s())).isBetween(started, Instant.now());
        });
    }

    /** Logs the cost of the idle source: requests to kinesalite per second and CPU, over 10 s. */
    private void measureIdlePolling() throws InterruptedException {
        Optional<ProcessHandle> node = ProcessHandle.current()
                .descendants()
                .filter(p -> p.info()
                        .arguments()
                        .map(a -> List.of(a).contains(String.valueOf(kinesalite.port())))
                        .orElse(false))
                .findFirst();
        Map<String, Long> before = kinesisProxy.counts();
        Duration nodeCpuBefore = node.flatMap(p -> p.info().totalCpuDuration()).orElse(Duration.ZERO);
        Duration jvmCpuBefore =
                ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
        long start = System.nanoTime();
        Thread.sleep(IDLE_MEASUREMENT.toMillis());
        double seconds = (System.nanoTime() - start) / 1e9;
        Map<String, Long> after = kinesisProxy.counts();
        Duration nodeCpu = node.flatMap(p -> p.info().totalCpuDuration())
                .orElse(Duration.ZERO)
                .minus(nodeCpuBefore);
        Duration jvmCpu = ProcessHandle.current()
                .info()
                .totalCpuDuration()
                .orElse(Duration.ZERO)
                .minus(jvmCpuBefore);
        Map<String, Long> calls = new TreeMap<>();
        after.forEach((operation, n) -> calls.put(operation, n - before.getOrDefault(operation, 0L)));
        long getRecords = calls.getOrDefault("GetRecords", 0L);
        LOG.info(
                "Idle Kinesis source (2 shards, parallelism 2, kinesalite 3.3.3 via a counting proxy), over {} s: "
                        + "{} GetRecords/s, calls {}; kinesalite CPU {} % of one core, test JVM CPU {} % of one core",
                String.format("%.1f", seconds),
                String.format("%.0f", getRecords / seconds),
                calls,
                String.format("%.0f", 100.0 * nodeCpu.toMillis() / 1000 / seconds),
                String.format("%.0f", 100.0 * jvmCpu.toMillis() / 1000 / seconds));
        assertThat(getRecords).as("the source keeps polling its idle shards").isPositive();
    }

    private boolean periodTablesAsExpected() {
        return expected.periodTables().entrySet().stream()
                .allMatch(table -> TableContents.items(dynamo, table.getKey()).equals(table.getValue()));
    }

    private boolean rejectedAsExpected() {
        return comparable(rejectedItems()).equals(expected.rejected());
    }

    /** Rejected items as read back, without message and arrival, an aliased origin replaced. */
    private Map<List<String>, Map<String, AttributeValue>> comparable(
            Map<List<String>, Map<String, AttributeValue>> items) {
        Map<List<String>, Map<String, AttributeValue>> stripped = ExpectedItems.withoutMessageAndArrival(items);
        stripped.replaceAll((key, item) -> {
            String alias = originAliases.get(item.get("origin").s());
            if (alias == null) {
                return item;
            }
            Map<String, AttributeValue> aliased = new HashMap<>(item);
            aliased.put("origin", AttributeValue.fromS(alias));
            return TableContents.canonical(aliased);
        });
        return stripped;
    }

    private Map<List<String>, Map<String, AttributeValue>> rejectedItems() {
        return TableContents.items(dynamo, config.naming().rejectedTable());
    }

    /** The items of every late table of the prefix, together. */
    private Map<List<String>, Map<String, AttributeValue>> lateItems() {
        Map<List<String>, Map<String, AttributeValue>> items = new HashMap<>();
        TableContents.tablesOf(dynamo, config.naming()).stream()
                .filter(config.naming()::isLateTable)
                .forEach(table -> items.putAll(TableContents.items(dynamo, table)));
        return items;
    }

    private void malformed(List<Put> shard, String hashKey, String text, String reason) {
        malformed(shard, hashKey, text.getBytes(StandardCharsets.UTF_8), reason);
    }

    private void malformed(List<Put> shard, String hashKey, byte[] raw, String reason) {
        Put put = new Put(hashKey, raw);
        shard.add(put);
        rejectedOncePut.add(() -> expected.rejected(reason, raw, origins.get(put)));
    }

    private static Put put(String hashKey, String json) {
        return new Put(hashKey, json.getBytes(StandardCharsets.UTF_8));
    }

    /** Puts in order, one by one, so each shard keeps the order of its list; notes each origin. */
    private void putAll(List<Put> puts) {
        for (Put p : puts) {
            PutRecordResponse put = kinesis.putRecord(b -> b.streamName(STREAM)
                    .partitionKey("p")
                    .explicitHashKey(p.hashKey())
                    .data(SdkBytes.fromByteArray(p.data())));
            origins.put(p, "kinesis:" + STREAM + "/" + put.shardId() + "/" + put.sequenceNumber());
        }
    }

    private static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }

    private static AttributeValue n(String value) {
        return AttributeValue.fromN(value);
    }

    /** One record for the stream, with the explicit hash key that picks its shard. */
    private record Put(String hashKey, byte[] data) {}
}
