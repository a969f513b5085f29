package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.TableNaming;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.Kinesalite;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * Event time as the Kinesis source tracks it, on the production topology with kinesalite and
 * dynalite: the table a reading lands in depends on the reading and its shard, not on
 * how shards interleave, on a device's clock, or on a restore.
 */
class EventTimeITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .setConfiguration(LoopbackFlink.configuration("0"))
            .build());

    private static final String SHARD_0 = "0";
    private static final String SHARD_1 = BigInteger.ONE.shiftLeft(127).toString();
    private static final Instant DAY_1 = Instant.parse("2025-03-01T00:00:00Z");
    private static final Duration BOUND = Duration.ofSeconds(90);

    private static Kinesalite kinesalite;
    private static KinesisClient kinesis;

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static Dynalite dynamoDb;
    private static DynamoDbClient dynamo;

    @BeforeAll
    static void startEmulators() {
        kinesalite = Kinesalite.start();
        kinesis = kinesalite.kinesisClient();
        dynamoDb = DYNAMODB.emulator();
        dynamo = dynamoDb.syncClient();
    }

    @AfterAll
    static void stopEmulators() {
        dynamo.close();
        kinesis.close();
        kinesalite.close();
    }

    /**
     * One subtask reads two shards: shard 0 carries three days, shard 1 a thousand readings of
     * the first day. Whichever shard the reader fetches first, the slow shard's readings are on
     * time: the job's watermark is the minimum of the shards' own.
     */
    @Test
    void aShardDaysBehindAnotherInOneSubtaskHasNoReadingRoutedLate() throws Exception {
        String stream = "skewed";
        String arn = kinesalite.createStream(stream, 2);
        List<String> fast = new ArrayList<>();
        for (int m = 0; m < 3 * 24 * 60; m += 30) {
            fast.add(reading("dev-fast", DAY_1.plus(Duration.ofMinutes(m)), m));
        }
        List<String> slow = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            slow.add(reading("dev-slow-" + i % 10, DAY_1.plus(Duration.ofSeconds(60L * i + i % 10)), i));
        }
        put(stream, SHARD_0, fast);
        put(stream, SHARD_1, slow);
        PeriodTablesConfig config = config(arn, "skew", "P1D");

        JobClient job = submit(config, 1, null);
        try {
            Map<String, Integer> expected = Map.of(
                    config.naming().periodTableOf(DAY_1), 48 + 1000,
                    config.naming().periodTableOf(DAY_1.plus(Duration.ofDays(1))), 48,
                    config.naming().periodTableOf(DAY_1.plus(Duration.ofDays(2))), 48);
            boolean stored = TableContents.eventually(
                    BOUND, () -> itemCounts(config.naming()).equals(expected));
            assertThat(itemCounts(config.naming()))
                    .as("items per table, stored: %s", stored)
                    .isEqualTo(expected);
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * One device 40 minutes fast, read before 300 honest live readings: it is stored in its own
     * period (hourly: this one or the next, which the table owner opens), but the watermark stays
     * behind the wall clock, so no honest reading is late and the table the fleet writes to keeps
     * its open tier. Uncapped, its reading would close the current hour whenever the test runs in
     * the hour's last 40 minutes.
     */
    @Test
    void aFastDeviceClockMakesNoHonestReadingLate() throws Exception {
        String stream = "fast-clock";
        String arn = kinesalite.createStream(stream, 1);
        PeriodTablesConfig config =
                config(arn, "fastclock", "PT1H", "--window.allowed-lateness", "PT1M", "--rotation.lead", "PT1M");
        Instant now = Instant.now();
        Instant fastReading = now.plus(Duration.ofMinutes(40));
        List<String> records = new ArrayList<>();
        records.add(reading("dev-fast", fastReading, 0));
        Map<String, Integer> expected = new TreeMap<>();
        expected.merge(config.naming().periodTableOf(fastReading), 1, Integer::sum);
        for (int i = 0; i < 300; i++) {
            Instant t = now.minusMillis(100L * (300 - i));
            records.add(reading("dev-" + i % 30, t, i));
            expected.merge(config.naming().periodTableOf(t), 1, Integer::sum);
        }
        put(stream, SHARD_0, records);

        JobClient job = submit(config, 1, null);
        try {
            boolean stored = TableContents.eventually(
                    BOUND, () -> itemCounts(config.naming()).equals(expected));
            assertThat(itemCounts(config.naming()))
                    .as("items per table, no late table; stored: %s", stored)
                    .isEqualTo(expected);
            String open = config.naming().periodTableOf(Instant.now());
            assertThat(TableContents.tierOf(dynamo, config, open))
                    .as("tier of %s", open)
                    .contains(CapacityTier.CURRENT);
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * A job of parallelism 2 on a one-shard stream: one source subtask never receives anything.
     * Stopped with a savepoint after three days of readings and restored, it still judges a
     * reading of the first day late — the restored watermark is in force on the quiet subtask
     * from the start — so the closed table is not written and the late table holds it once.
     */
    @Test
    void aRestoreWithAQuietSubtaskKeepsLateReadingsLate(@TempDir Path savepoints) throws Exception {
        String stream = "quiet-restore";
        String arn = kinesalite.createStream(stream, 1);
        PeriodTablesConfig config = config(arn, "quiet", "P1D");
        TableNaming naming = config.naming();
        List<String> days = new ArrayList<>();
        for (int m = 0; m < 3 * 24 * 60; m += 60) {
            days.add(reading("dev-" + m % 7, DAY_1.plus(Duration.ofMinutes(m)), m));
        }
        put(stream, SHARD_0, days);
        Map<String, Integer> before = Map.of(
                naming.periodTableOf(DAY_1),
                24,
                naming.periodTableOf(DAY_1.plus(Duration.ofDays(1))),
                24,
                naming.periodTableOf(DAY_1.plus(Duration.ofDays(2))),
                24);

        JobClient first = submit(config, 2, null);
        String savepoint;
        try {
            assertThat(TableContents.eventually(BOUND, () -> itemCounts(naming).equals(before)))
                    .isTrue();
        } finally {
            savepoint = first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(60, TimeUnit.SECONDS);
        }

        Instant lateReading = DAY_1.plus(Duration.ofHours(5));
        put(stream, SHARD_0, List.of(reading("dev-late", lateReading, 1)));
        Map<String, Integer> after = new TreeMap<>(before);
        // The watermark that makes it late lies on the third day: the late table of March 2025.
        after.put(naming.lateTable(DAY_1.plus(Duration.ofDays(2))), 1);
        JobClient second = submit(config, 2, savepoint);
        try {
            boolean stored =
                    TableContents.eventually(BOUND, () -> itemCounts(naming).equals(after));
            assertThat(itemCounts(naming)).as("stored: %s", stored).isEqualTo(after);
        } finally {
            second.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * The same input read twice from TRIM_HORIZON, at parallelism 1 and 2 (one shard per
     * subtask): identical items in every table, the late table included, whatever the speed.
     */
    @Test
    void aReplayAtAnotherParallelismStoresTheSameItems() throws Exception {
        String stream = "replay";
        String arn = kinesalite.createStream(stream, 2);
        for (String shard : List.of(SHARD_0, SHARD_1)) {
            List<String> records = new ArrayList<>();
            for (int m = 0; m < 3 * 24 * 60; m += 20) {
                records.add(reading("dev-" + shard.length() + "-" + m % 5, DAY_1.plus(Duration.ofMinutes(m)), m));
            }
            // Late against this shard's own watermark (two days on), and on time against any other.
            records.add(reading("dev-late-" + shard.length(), DAY_1.plus(Duration.ofHours(1)), 1));
            records.add(reading("dev-end-" + shard.length(), DAY_1.plus(Duration.ofDays(3)), 2));
            put(stream, shard, records);
        }

        Map<String, Map<String, Map<List<String>, Map<String, AttributeValue>>>> runs = new TreeMap<>();
        for (int parallelism : new int[] {1, 2}) {
            PeriodTablesConfig config = config(arn, "replay" + parallelism, "P1D");
            JobClient job = submit(config, parallelism, null);
            try {
                int expected = 2 * (3 * 24 * 3 + 2);
                TableContents.eventually(BOUND, () -> total(config.naming()) == expected);
                assertThat(total(config.naming())).isEqualTo(expected);
            } finally {
                job.cancel().get(30, TimeUnit.SECONDS);
            }
            Map<String, Map<List<String>, Map<String, AttributeValue>>> bySuffix = new TreeMap<>();
            TableContents.nonEmptyTables(dynamo, config.naming())
                    .forEach((table, items) -> bySuffix.put(table.substring(table.indexOf('_')), items));
            runs.put("p" + parallelism, bySuffix);
        }
        assertThat(runs.get("p1")).isEqualTo(runs.get("p2"));
        assertThat(runs.get("p1").keySet()).contains("_late_2025-03");
    }

    private static PeriodTablesConfig config(String arn, String prefix, String period, String... more)
            throws java.io.IOException {
        return KinesisJobs.config(kinesalite, dynamoDb, arn, prefix, period, more);
    }

    private static JobClient submit(PeriodTablesConfig config, int parallelism, String savepoint) throws Exception {
        return KinesisJobs.submit(config, parallelism, savepoint);
    }

    private static String reading(String device, Instant t, int value) {
        return "{\"deviceId\":\"" + device + "\",\"timestamp\":\"" + t + "\",\"v\":" + value + "}";
    }

    /** Puts in order, one by one, so the shard keeps the order of the list. */
    private static void put(String stream, String hashKey, List<String> records) {
        for (String json : records) {
            kinesis.putRecord(b -> b.streamName(stream)
                    .partitionKey("p")
                    .explicitHashKey(hashKey)
                    .data(SdkBytes.fromByteArray(json.getBytes(StandardCharsets.UTF_8))));
        }
    }

    /** Items per non-empty table of the prefix. */
    private static Map<String, Integer> itemCounts(TableNaming naming) {
        Map<String, Integer> counts = new TreeMap<>();
        TableContents.nonEmptyTables(dynamo, naming).forEach((table, items) -> counts.put(table, items.size()));
        return counts;
    }

    private static int total(TableNaming naming) {
        return itemCounts(naming).values().stream().mapToInt(Integer::intValue).sum();
    }
}
