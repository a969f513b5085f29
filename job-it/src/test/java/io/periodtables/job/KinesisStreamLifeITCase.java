package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.TableNaming;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.Kinesalite;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * A stream's life across a savepoint, on the production topology against kinesalite behind the
 * Kinesis fidelity layer: the stream replaced by another (refused once, in one line, before a
 * reading of the other is stored), and a shard Kinesis deleted while the job was down (its split
 * ends, its children are read, nothing fails). Both restore the savepoint of one first run.
 */
class KinesisStreamLifeITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .setConfiguration(LoopbackFlink.configuration("0"))
            .build());

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final Duration BOUND = Duration.ofSeconds(90);
    private static final String UPPER_HALF = BigInteger.ONE.shiftLeft(127).toString();

    private static final String STREAM = "life";
    private static final Instant EIGHT = Instant.parse("2025-06-01T08:00:00Z");

    private static Kinesalite kinesalite;
    private static Dynalite dynamoDb;
    private static DynamoDbClient dynamo;
    private static KinesisClient kinesis;
    private static String arn;
    private static TableNaming naming;
    /** What the first run stored: 6 readings from 08:00 in the stream's one shard. */
    private static final Map<String, Integer> stored = new TreeMap<>();
    /** The first run's savepoint, taken before any reshard; each test restores it. */
    private static String savepoint;

    @TempDir
    static Path savepoints;

    @BeforeAll
    static void startEmulators() {
        kinesalite = Kinesalite.start();
        kinesis = kinesalite.kinesisClient();
        dynamoDb = DYNAMODB.emulator();
        dynamo = dynamoDb.syncClient();
    }

    /** Before the first test (the MiniCluster is the test's environment from {@code beforeEach} on). */
    @BeforeEach
    void runOnceAndStopWithASavepoint() throws Exception {
        if (savepoint != null) {
            return;
        }
        arn = kinesalite.createStream(STREAM, 1);
        PeriodTablesConfig config = config(arn);
        naming = config.naming();
        put(STREAM, "0", EIGHT, 6, stored);
        JobClient job = KinesisJobs.submit(config, 1, null);
        try {
            assertThat(TableContents.eventually(BOUND, () -> counts().equals(stored)))
                    .as("stored before the stop")
                    .isTrue();
            savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(60, TimeUnit.SECONDS);
        } catch (Exception | AssertionError e) {
            job.cancel().get(30, TimeUnit.SECONDS);
            throw e;
        }
    }

    @AfterAll
    static void stopEmulators() {
        dynamo.close();
        kinesis.close();
        kinesalite.close();
    }

    /**
     * The savepoint's stream replaced by another that holds new readings (a stream recreated, moved
     * to another account): the restore fails once, without restarts (checkpointing is on, so Flink
     * would restart without end), with the one line, and stores none of the new stream's readings
     * from the old stream's positions.
     */
    @Test
    void aRestoreOntoAnotherStreamIsRefusedOnceInOneLine() throws Exception {
        String other = kinesalite.createStream("life-other", 1);
        Map<String, Integer> others = new TreeMap<>();
        put("life-other", "0", Instant.parse("2025-06-03T10:00:00Z"), 20, others);
        JobClient restored = KinesisJobs.submit(config(other), 1, savepoint);
        try {
            assertThatThrownBy(() -> restored.getJobExecutionResult().get(BOUND.toSeconds(), TimeUnit.SECONDS))
                    .rootCause()
                    .hasMessage("Invalid configuration: kinesis.stream-arn = '" + other + "' cannot change across a"
                            + " restore: the savepoint was taken with kinesis.stream-arn = '" + arn + "' and holds"
                            + " positions in that stream; set it back, or start without the savepoint from"
                            + " kinesis.initial-position AT_TIMESTAMP (docs/operations.md, What may change across a"
                            + " redeploy)");
        } finally {
            if (!restored.getJobStatus().get(10, TimeUnit.SECONDS).isGloballyTerminalState()) {
                restored.cancel().get(30, TimeUnit.SECONDS);
            }
        }
        assertThat(counts())
                .as("nothing of the other stream")
                .doesNotContainKeys(others.keySet().toArray(String[]::new));
    }

    /**
     * The shard split after the savepoint, the job down while the closed parent passes the stream's
     * retention (24 hours on the layer's clock), then a restore at parallelism 2 with restarts off:
     * the parent's restored split ends (Kinesis no longer has the shard), and the children's
     * readings are stored; the job never fails.
     */
    @Test
    void aRestoredShardKinesisDeletedEndsAndItsChildrenAreRead() throws Exception {
        kinesalite.splitShard(STREAM, "shardId-000000000000");
        kinesalite.layer().advanceClock(Duration.ofHours(25));
        // DynaliteExtension empties DynamoDB between tests: what the first run stored is gone.
        Map<String, Integer> expected = new TreeMap<>();
        Instant ten = Instant.parse("2025-06-01T10:00:00Z");
        put(STREAM, "0", ten, 6, expected);
        put(STREAM, UPPER_HALF, ten.plusSeconds(30), 6, expected);

        JobClient restored = KinesisJobs.submitWithoutRestarts(config(arn), 2, savepoint);
        try {
            boolean inTime = TableContents.eventually(BOUND, () -> counts().equals(expected));
            assertThat(restored.getJobStatus().get(10, TimeUnit.SECONDS))
                    .as("the job never failed (restarts are off)")
                    .isEqualTo(JobStatus.RUNNING);
            assertThat(counts())
                    .as("the children's readings stored once (in time: %s)", inTime)
                    .isEqualTo(expected);
        } finally {
            restored.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    private static PeriodTablesConfig config(String streamArn) throws IOException {
        return KinesisJobs.config(kinesalite, dynamoDb, streamArn, "life", "PT1H");
    }

    private static Map<String, Integer> counts() {
        return KinesisJobs.counts(dynamo, naming);
    }

    /** {@code count} readings of one device a minute apart from {@code start}, into the shard of {@code hashKey}. */
    private static void put(String stream, String hashKey, Instant start, int count, Map<String, Integer> expected) {
        String device = stream + "-" + hashKey.length();
        for (int i = 0; i < count; i++) {
            Instant at = start.plus(Duration.ofMinutes(i));
            String json = "{\"deviceId\":\"" + device + "\",\"timestamp\":\"" + at + "\",\"v\":" + i + "}";
            kinesis.putRecord(b -> b.streamName(stream)
                    .partitionKey("p")
                    .explicitHashKey(hashKey)
                    .data(SdkBytes.fromString(json, StandardCharsets.UTF_8)));
            expected.merge(naming.periodTableOf(at), 1, Integer::sum);
        }
    }
}
