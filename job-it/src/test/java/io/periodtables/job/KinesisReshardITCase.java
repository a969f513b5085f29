package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
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
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;

/**
 * Streams that reshard under the running job, as Kinesis does on its own for on-demand streams and
 * on {@code UpdateShardCount} for provisioned ones: every reading stored once, and the job's
 * watermark moving on after the reshard, so that the rotation prebuilds the next period's table.
 *
 * <p>A merge leaves one source subtask without an open shard whenever the source's parallelism is
 * at least the number of shards merged. That subtask must stop holding the job's watermark within
 * {@code watermark.idleness} (shortened here to 30 s so the test waits less; the rule is the same at
 * the default minute; it must stay above the 10 s the connector's enumerator may take to list a closed
 * shard's children, see the catch-up test). Readings are of 2025, so the wall-clock cap never holds the watermark.
 */
class KinesisReshardITCase {
    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(3)
            .setConfiguration(METRICS.addToConfiguration(LoopbackFlink.configuration("0")))
            .build());

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final Instant T0 = Instant.parse("2025-06-01T08:00:00Z");
    /** The hash key at the start of the upper half: the second of two shards, the second child of a split. */
    private static final String UPPER_HALF = BigInteger.ONE.shiftLeft(127).toString();

    private static final String LOWER_HALF = "0";
    /** The middle of the lower half: where a split divides the first of two shards. */
    private static final BigInteger QUARTER = BigInteger.ONE.shiftLeft(126);

    private static final Duration BOUND = Duration.ofSeconds(90);

    private static Kinesalite kinesalite;
    private static Dynalite dynamoDb;
    private static DynamoDbClient dynamo;
    private static KinesisClient kinesis;

    @TempDir
    Path savepoints;

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
     * Two shards merged into one while the job reads them: at parallelism 2 one subtask is left
     * without a shard; at 3 one never had one and a second loses its own. Readings put into the
     * merged shard move the watermark past 10:45, where the rotation prebuilds the 11:00 table.
     */
    @ParameterizedTest(name = "parallelism {0}")
    @CsvSource({"2", "3"})
    void aMergeWhileTheJobRunsLeavesNoSubtaskHoldingTheWatermark(int parallelism) throws Exception {
        String stream = "merge-p" + parallelism;
        PeriodTablesConfig config = config(kinesalite.createStream(stream, 2), "merge" + parallelism);
        JobClient job = mergeWhileRunning(stream, config, parallelism, new TreeMap<>(), 12);
        try {
            assertPrebuilt(config.naming(), Instant.parse("2025-06-01T11:00:00Z"));
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * One shard split in two while the job reads it at parallelism 2: the children's readings are
     * stored once each, and the watermark moves past 10:45 with them.
     */
    @Test
    void aSplitWhileTheJobRunsStoresTheChildrensReadingsOnce() throws Exception {
        String stream = "split";
        String arn = kinesalite.createStream(stream, 1);
        PeriodTablesConfig config = config(arn, "split");
        TableNaming naming = config.naming();
        Map<String, Integer> expected = new TreeMap<>();
        put(stream, LOWER_HALF, readings("a", T0, Duration.ofMinutes(10), 12), expected, naming);

        JobClient job = submit(config, 2, null);
        try {
            awaitStored(naming, expected, "before the split");
            split(stream, "shardId-000000000000");
            Instant later = T0.plus(Duration.ofHours(2));
            put(stream, LOWER_HALF, readings("c", later, Duration.ofMinutes(5), 12), expected, naming);
            put(stream, UPPER_HALF, readings("d", later, Duration.ofMinutes(5), 12), expected, naming);
            awaitStored(naming, expected, "after the split");
            assertPrebuilt(naming, Instant.parse("2025-06-01T11:00:00Z"));
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * A catch-up across a split at parallelism 1, fewer subtasks than shards, with the parent the
     * laggard: the job reads from TRIM_HORIZON a parent whose readings end at 10:30 and a sibling
     * hours ahead, to 13:00; the parent is split once read, and its children's readings go on from
     * 10:31. Between the parent's end and its children's assignment, the subtask's watermark must
     * stay at the parent's end: released at once, it jumps to the sibling's 12:59:55 and the
     * children's readings go late. The split comes right after a shard discovery (a ListShards call
     * the layer counts), so the children wait the connector's 10 s discovery interval for theirs
     * while the parent's end is seen within a second or two: that window is there in every run.
     * Every reading is stored in its period's table, none in the late table.
     */
    @Test
    void aCatchUpAcrossASplitWithTheParentLaggingStoresTheChildrensReadingsOnTime() throws Exception {
        String stream = "catch-up";
        PeriodTablesConfig config = config(kinesalite.createStream(stream, 2), "catchup");
        TableNaming naming = config.naming();
        Map<String, Integer> expected = new TreeMap<>();
        put(stream, LOWER_HALF, readings("a", T0, Duration.ofMinutes(10), 16), expected, naming);
        put(stream, UPPER_HALF, readings("b", T0, Duration.ofMinutes(20), 16), expected, naming);

        JobClient job = submit(config, 1, null);
        try {
            awaitStored(naming, expected, "before the split");
            long listed = kinesalite.layer().served("listShards");
            boolean discovered = TableContents.eventually(
                    Duration.ofSeconds(30), () -> kinesalite.layer().served("listShards") > listed);
            assertThat(discovered).as("a shard discovery of the job").isTrue();
            kinesalite.splitShard(stream, "shardId-000000000000", QUARTER);
            Instant afterTheParent = Instant.parse("2025-06-01T10:31:00Z");
            put(stream, LOWER_HALF, readings("c", afterTheParent, Duration.ofMinutes(5), 12), expected, naming);
            put(stream, QUARTER.toString(), readings("d", afterTheParent, Duration.ofMinutes(5), 12), expected, naming);
            int total = expected.values().stream().mapToInt(Integer::intValue).sum();
            boolean all = TableContents.eventually(
                    BOUND,
                    () -> counts(naming).values().stream()
                                    .mapToInt(Integer::intValue)
                                    .sum()
                            >= total);
            assertThat(counts(naming))
                    .as("every reading in its period's table, none late (all arrived: %s)", all)
                    .isEqualTo(expected);
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * A TRIM_HORIZON start on a stream split within its retention, at parallelism 2, more subtasks
     * than open shards: the parent is read first (a backlog from 08:00 to 10:30), then its children,
     * one by the parent's subtask and one by the subtask that had nothing to read, which takes the
     * parent's watermark over before the parent's subtask lets it go: every reading in its period's
     * table, none late, and both subtasks read a shard.
     */
    @Test
    void aSplitsChildrenAreSpreadOverASpareSubtaskAndReadOnTime() throws Exception {
        String stream = "spread";
        PeriodTablesConfig config = config(kinesalite.createStream(stream, 1), "spread");
        TableNaming naming = config.naming();
        Map<String, Integer> expected = new TreeMap<>();
        put(stream, LOWER_HALF, readings("a", T0, Duration.ofMinutes(10), 16), expected, naming);
        split(stream, "shardId-000000000000");
        Instant afterTheParent = Instant.parse("2025-06-01T10:31:00Z");
        put(stream, LOWER_HALF, readings("c", afterTheParent, Duration.ofMinutes(5), 12), expected, naming);
        put(stream, UPPER_HALF, readings("d", afterTheParent, Duration.ofMinutes(5), 12), expected, naming);

        JobClient job = submit(config, 2, null);
        try {
            awaitStored(naming, expected, "with the children");
            boolean spread = TableContents.eventually(BOUND, () -> subtasksReadingAShard(job.getJobID()) == 2);
            assertThat(subtasksReadingAShard(job.getJobID()))
                    .as("source subtasks that read a shard (millisBehindLatest ≥ 0; spread: %s)", spread)
                    .isEqualTo(2);
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /** Source subtasks of the job whose reader has read an open shard, by our {@code millisBehindLatest}. */
    private static long subtasksReadingAShard(JobID job) {
        String name = UserMetrics.MILLIS_BEHIND_LATEST;
        return METRICS.getMetricsByGroup().entrySet().stream()
                .filter(g -> job.toString().equals(g.getKey().getAllVariables().get("<job_id>")))
                .filter(g -> g.getKey().getMetricIdentifier(name).endsWith("." + UserMetrics.GROUP + "." + name))
                .map(g -> g.getValue().get(name))
                .filter(metric -> metric instanceof Gauge<?> gauge && ((Number) gauge.getValue()).longValue() >= 0)
                .count();
    }

    /**
     * A savepoint taken after a merge, while the merged shard is being read, restores with nothing
     * read twice or skipped: the closed parents are not read again, the merged shard continues after
     * its last emitted record, and readings put after the restore move the watermark on.
     */
    @Test
    void aRestoreFromASavepointTakenAfterAMergeReadsEveryRecordOnce() throws Exception {
        String stream = "merge-restore";
        PeriodTablesConfig config = config(kinesalite.createStream(stream, 2), "mrestore");
        TableNaming naming = config.naming();
        Map<String, Integer> expected = new TreeMap<>();
        JobClient first = mergeWhileRunning(stream, config, 2, expected, 6);
        String savepoint;
        try {
            assertThat(counts(naming)).isEqualTo(expected);
        } finally {
            savepoint = first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(60, TimeUnit.SECONDS);
        }

        put(
                stream,
                LOWER_HALF,
                readings("d", T0.plus(Duration.ofMinutes(150)), Duration.ofMinutes(5), 18),
                expected,
                naming);
        JobClient second = submit(config, 2, savepoint);
        try {
            awaitStored(naming, expected, "after the restore");
            assertPrebuilt(naming, Instant.parse("2025-06-01T12:00:00Z"));
        } finally {
            second.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Puts 12 readings of device a and 12 of device b, 08:00 to 09:50, into the stream's two
     * shards, starts the job, merges the shards once those are stored, and puts {@code merged}
     * readings of device c, from 10:00 five minutes apart, into the merged shard; returns the
     * running job once they are stored too.
     */
    private static JobClient mergeWhileRunning(
            String stream, PeriodTablesConfig config, int parallelism, Map<String, Integer> expected, int merged)
            throws Exception {
        TableNaming naming = config.naming();
        put(stream, LOWER_HALF, readings("a", T0, Duration.ofMinutes(10), 12), expected, naming);
        put(stream, UPPER_HALF, readings("b", T0, Duration.ofMinutes(10), 12), expected, naming);
        JobClient job = submit(config, parallelism, null);
        try {
            awaitStored(naming, expected, "before the merge");
            merge(stream);
            Instant ten = T0.plus(Duration.ofHours(2));
            put(stream, LOWER_HALF, readings("c", ten, Duration.ofMinutes(5), merged), expected, naming);
            awaitStored(naming, expected, "after the merge");
            return job;
        } catch (Exception | AssertionError e) {
            job.cancel().get(30, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static void awaitStored(TableNaming naming, Map<String, Integer> expected, String when)
            throws InterruptedException {
        boolean stored = TableContents.eventually(BOUND, () -> counts(naming).equals(expected));
        assertThat(counts(naming))
                .as("items per table %s (stored: %s)", when, stored)
                .isEqualTo(expected);
    }

    private static void assertPrebuilt(TableNaming naming, Instant period) throws InterruptedException {
        String table = naming.periodTableOf(period);
        assertThat(TableContents.eventually(BOUND, () -> TableContents.exists(dynamo, table)))
                .as("%s prebuilt: the job's watermark passed its rollover less the lead", table)
                .isTrue();
    }

    private static Map<String, Integer> counts(TableNaming naming) {
        return KinesisJobs.counts(dynamo, naming);
    }

    /** {@code count} readings of one device from {@code start}, {@code step} apart. */
    private static List<Reading> readings(String device, Instant start, Duration step, int count) {
        List<Reading> readings = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            readings.add(new Reading(device, start.plus(step.multipliedBy(i)), i));
        }
        return readings;
    }

    /** Puts in order, one by one, and counts each reading in its period's table. */
    private static void put(
            String stream, String hashKey, List<Reading> readings, Map<String, Integer> expected, TableNaming naming) {
        for (Reading reading : readings) {
            String json = "{\"deviceId\":\"" + reading.device() + "\",\"timestamp\":\"" + reading.at() + "\",\"v\":"
                    + reading.value() + "}";
            kinesis.putRecord(b -> b.streamName(stream)
                    .partitionKey("p")
                    .explicitHashKey(hashKey)
                    .data(SdkBytes.fromByteArray(json.getBytes(StandardCharsets.UTF_8))));
            expected.merge(naming.periodTableOf(reading.at()), 1, Integer::sum);
        }
    }

    /** Merges the stream's two open shards, which split the hash range in halves, into one. */
    private static void merge(String stream) throws InterruptedException {
        List<Shard> open = openShards(stream);
        assertThat(open).hasSize(2);
        kinesis.mergeShards(b -> b.streamName(stream)
                .shardToMerge(open.get(0).shardId())
                .adjacentShardToMerge(open.get(1).shardId()));
        awaitActive(stream);
        assertThat(openShards(stream)).hasSize(1);
    }

    /** Splits a shard at the middle of the hash range. */
    private static void split(String stream, String shardId) throws InterruptedException {
        kinesis.splitShard(b -> b.streamName(stream).shardToSplit(shardId).newStartingHashKey(UPPER_HALF));
        awaitActive(stream);
        assertThat(openShards(stream)).hasSize(2);
    }

    private static List<Shard> openShards(String stream) {
        return kinesis.listShards(b -> b.streamName(stream)).shards().stream()
                .filter(shard -> shard.sequenceNumberRange().endingSequenceNumber() == null)
                .toList();
    }

    private static void awaitActive(String stream) throws InterruptedException {
        boolean active = TableContents.eventually(
                Duration.ofSeconds(30),
                () -> kinesis.describeStreamSummary(b -> b.streamName(stream))
                                .streamDescriptionSummary()
                                .streamStatus()
                        == StreamStatus.ACTIVE);
        assertThat(active).as("stream %s ACTIVE after the reshard", stream).isTrue();
    }

    private static PeriodTablesConfig config(String arn, String prefix) throws java.io.IOException {
        return KinesisJobs.config(kinesalite, dynamoDb, arn, prefix, "PT1H", "--watermark.idleness", "PT30S");
    }

    private static JobClient submit(PeriodTablesConfig config, int parallelism, String savepoint) throws Exception {
        return KinesisJobs.submit(config, parallelism, savepoint);
    }

    private record Reading(String device, Instant at, int value) {}
}
