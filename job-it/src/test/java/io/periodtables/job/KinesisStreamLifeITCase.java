package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * A stream's life across a savepoint, on the production topology against kinesalite behind the
 * Kinesis fidelity layer: the stream replaced by another (refused once, in one line, before a
 * reading of either is stored), and a shard Kinesis deleted while the job was down (its split ends,
 * its children are read, nothing fails).
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
     * The savepoint's stream replaced by another that holds new readings (a stream recreated, moved
     * to another account): the restore fails once, without restarts (checkpointing is on, so Flink
     * would restart without end), with the one line, and stores none of the new stream's readings
     * from the old stream's positions.
     */
    @Test
    void aRestoreOntoAnotherStreamIsRefusedOnceInOneLine() throws Exception {
        String before = kinesalite.createStream("life-before", 1);
        PeriodTablesConfig config = KinesisJobs.config(kinesalite, dynamoDb, before, "life", "PT1H");
        TableNaming naming = config.naming();
        Map<String, Integer> expected = new TreeMap<>();
        put("life-before", "0", Instant.parse("2025-06-01T08:00:00Z"), 6, expected, naming);
        String savepoint = runAndStop(config, expected);

        String after = kinesalite.createStream("life-after", 1);
        put("life-after", "0", Instant.parse("2025-06-01T10:00:00Z"), 20, new TreeMap<>(), naming);
        JobClient restored =
                KinesisJobs.submit(KinesisJobs.config(kinesalite, dynamoDb, after, "life", "PT1H"), 1, savepoint);
        try {
            assertThatThrownBy(() -> restored.getJobExecutionResult().get(BOUND.toSeconds(), TimeUnit.SECONDS))
                    .rootCause()
                    .hasMessage("Invalid configuration: kinesis.stream-arn = '" + after + "' cannot change across a"
                            + " restore: the savepoint was taken with kinesis.stream-arn = '" + before + "' and holds"
                            + " positions in that stream; set it back, or start without the savepoint from"
                            + " kinesis.initial-position AT_TIMESTAMP (docs/operations.md, What may change across a"
                            + " redeploy)");
        } finally {
            if (!restored.getJobStatus().get(10, TimeUnit.SECONDS).isGloballyTerminalState()) {
                restored.cancel().get(30, TimeUnit.SECONDS);
            }
        }
        assertThat(KinesisJobs.counts(dynamo, naming)).isEqualTo(expected);
    }

    /**
     * A savepoint taken before a split, the job down while the closed parent passes the stream's
     * retention (24 hours on the layer's clock), then a restore at parallelism 2 with restarts off:
     * the parent's restored split ends (Kinesis no longer has the shard), and the children's
     * readings are stored; the job never fails.
     */
    @Test
    void aRestoredShardKinesisDeletedEndsAndItsChildrenAreRead() throws Exception {
        String arn = kinesalite.createStream("life-expired", 1);
        PeriodTablesConfig config = KinesisJobs.config(kinesalite, dynamoDb, arn, "expired", "PT1H");
        TableNaming naming = config.naming();
        Map<String, Integer> expected = new TreeMap<>();
        put("life-expired", "0", Instant.parse("2025-06-01T08:00:00Z"), 6, expected, naming);
        String savepoint = runAndStop(config, expected);

        kinesalite.splitShard("life-expired", "shardId-000000000000");
        kinesalite.layer().advanceClock(Duration.ofHours(25));
        Instant ten = Instant.parse("2025-06-01T10:00:00Z");
        put("life-expired", "0", ten, 6, expected, naming);
        put("life-expired", UPPER_HALF, ten.plusSeconds(30), 6, expected, naming);

        JobClient restored = KinesisJobs.submitWithoutRestarts(config, 2, savepoint);
        try {
            boolean stored = TableContents.eventually(
                    BOUND, () -> KinesisJobs.counts(dynamo, naming).equals(expected));
            assertThat(restored.getJobStatus().get(10, TimeUnit.SECONDS))
                    .as("the job never failed (restarts are off)")
                    .isEqualTo(JobStatus.RUNNING);
            assertThat(KinesisJobs.counts(dynamo, naming))
                    .as("the children's readings stored once (in time: %s)", stored)
                    .isEqualTo(expected);
        } finally {
            restored.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /** Runs the job until {@code expected} is stored, then stops it with a savepoint, whose path it returns. */
    private String runAndStop(PeriodTablesConfig config, Map<String, Integer> expected) throws Exception {
        JobClient job = KinesisJobs.submit(config, 1, null);
        try {
            assertThat(TableContents.eventually(
                            BOUND,
                            () -> KinesisJobs.counts(dynamo, config.naming()).equals(expected)))
                    .as("stored before the stop")
                    .isTrue();
            return job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(60, TimeUnit.SECONDS);
        } catch (Exception | AssertionError e) {
            job.cancel().get(30, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** {@code count} readings of one device a minute apart from {@code start}, into the shard of {@code hashKey}. */
    private static void put(
            String stream,
            String hashKey,
            Instant start,
            int count,
            Map<String, Integer> expected,
            TableNaming naming) {
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
