package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.TableNaming;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.Kinesalite;
import io.periodtables.emulators.KinesisLayer;
import io.periodtables.emulators.PollingConsumer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;

/**
 * A backfill under Kinesis's read limits, enforced by the Kinesis fidelity layer in front of
 * kinesalite: 5 GetRecords and 2 MiB a second per shard, shared by every consumer of the stream.
 * A second consumer application reads the same backlog from TRIM_HORIZON at the same time, the way
 * a KCL application polls (once a second per shard, 10,000 records a call). The job must store
 * every reading exactly once without a restart (restarts are off: a failed read fails the test),
 * while Kinesis refuses some of its calls; the refusals and the read rate per shard are logged.
 * And a restore after an outage longer than the stream's retention, on the layer's clock.
 */
class KinesisReadLimitsITCase {
    private static final Logger LOG = LoggerFactory.getLogger(KinesisReadLimitsITCase.class);

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .setConfiguration(LoopbackFlink.configuration("0"))
            .build());

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final Instant T0 = Instant.parse("2025-06-01T00:00:00Z");
    private static final int PER_SHARD = 6_000;
    /** About 1 KB a reading: the backlog is 6 MB a shard, three seconds at 2 MiB a second. */
    private static final String PADDING = "x".repeat(960);

    private static final Duration BOUND = Duration.ofMinutes(3);

    private static Kinesalite kinesalite;
    private static Dynalite dynamoDb;
    private static DynamoDbClient dynamo;
    private static KinesisClient kinesis;

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

    @Test
    void aBackfillBesideASecondConsumerStoresEveryReadingOnceAndWaitsOutTheRefusals() throws Exception {
        String stream = "backfill";
        String arn = kinesalite.createStream(stream, 2);
        KinesisLayer layer = kinesalite.layer();
        // The backlog was put over hours in production: putting it here at the put limit of 1 MiB a
        // second per shard would only make the test slower, so that one rule is off while it is put.
        PeriodTablesConfig config = KinesisJobs.config(
                kinesalite,
                dynamoDb,
                arn,
                "backfill",
                "PT1H",
                "--tables.capacity.current",
                "10000/300",
                "--latest.enabled",
                "false");
        layer.limits(EnumSet.of(KinesisLayer.Limit.READS, KinesisLayer.Limit.ITERATORS));
        Map<String, Integer> expected = new TreeMap<>();
        putBacklog(stream, expected, config.naming());
        layer.reset(); // every limit on again, counters from zero

        long start = System.nanoTime();
        try (PollingConsumer other = PollingConsumer.start(kinesalite, stream)) {
            JobClient job = KinesisJobs.submitWithoutRestarts(config, 2, null);
            try {
                TableNaming naming = config.naming();
                boolean stored =
                        TableContents.eventually(BOUND, () -> counts(naming).equals(expected));
                double seconds = (System.nanoTime() - start) / 1e9;
                assertThat(job.getJobStatus().get(10, TimeUnit.SECONDS))
                        .as("the job never failed (restarts are off)")
                        .isEqualTo(JobStatus.RUNNING);
                assertThat(counts(naming))
                        .as("every reading once (in time: %s)", stored)
                        .isEqualTo(expected);

                long refused = layer.refused("refusedGetRecords");
                long served = layer.served("getRecords");
                LOG.info(
                        "Backfill of {} readings on 2 shards beside a second consumer: stored in {} s; GetRecords"
                                + " served {}, refused {} ({} by calls, {} by bytes), {} of them the second"
                                + " consumer's; the job read {} MiB, {} of 2 MiB/s per shard",
                        2 * PER_SHARD,
                        String.format("%.1f", seconds),
                        served,
                        refused,
                        layer.refused("refusedGetRecordsByCalls"),
                        layer.refused("refusedGetRecordsByBytes"),
                        other.refused(),
                        String.format("%.1f", (layer.served("getRecordsBytes") - other.bytes()) / 1024.0 / 1024),
                        String.format(
                                "%.2f",
                                (layer.served("getRecordsBytes") - other.bytes()) / seconds / 2 / (2.0 * 1024 * 1024)));
                // The reader rests a refused shard 0.5 s and more: refusals stay a fraction of the calls.
                assertThat(refused)
                        .as("refused GetRecords, against %s served", served)
                        .isLessThan(served);
            } finally {
                job.cancel().get(30, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * An outage longer than the stream's retention: the job restores a position Kinesis has
     * trimmed. It reads on from the shard's oldest record (what the outage left unread and the
     * stream kept), never fails, and counts the shard in {@code positionsTrimmed}; the readings
     * trimmed before it could read them are lost, which docs/operations.md says.
     */
    @Test
    void aRestoreFromAPositionTheStreamHasTrimmedReadsOnFromTheOldestRecord(@TempDir Path savepoints) throws Exception {
        String stream = "trimmed";
        String arn = kinesalite.createStream(stream, 1);
        PeriodTablesConfig config = KinesisJobs.config(kinesalite, dynamoDb, arn, "trimmed", "PT1H");
        TableNaming naming = config.naming();
        Map<String, Integer> expected = new TreeMap<>();
        put(stream, Instant.parse("2025-06-01T08:00:00Z"), expected, naming);

        JobClient first = KinesisJobs.submitWithoutRestarts(config, 2, null);
        String savepoint;
        try {
            assertThat(TableContents.eventually(BOUND, () -> counts(naming).equals(expected)))
                    .isTrue();
        } finally {
            savepoint = first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(60, TimeUnit.SECONDS);
        }
        put(stream, Instant.parse("2025-06-01T09:00:00Z"), new TreeMap<>(), naming); // never read: trimmed
        kinesalite.layer().advanceClock(Duration.ofHours(25)); // the stream's retention is 24 hours
        put(stream, Instant.parse("2025-06-01T10:00:00Z"), expected, naming);

        JobClient second = KinesisJobs.submitWithoutRestarts(config, 2, savepoint);
        try {
            boolean stored =
                    TableContents.eventually(BOUND, () -> counts(naming).equals(expected));
            assertThat(second.getJobStatus().get(10, TimeUnit.SECONDS)).isEqualTo(JobStatus.RUNNING);
            assertThat(counts(naming))
                    .as("09:00's readings were trimmed before the restore (in time: %s)", stored)
                    .isEqualTo(expected);
        } finally {
            second.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /** 12 readings, 5 minutes apart from {@code start}, put one by one into the stream's one shard. */
    private static void put(String stream, Instant start, Map<String, Integer> expected, TableNaming naming) {
        for (int i = 0; i < 12; i++) {
            Instant at = start.plus(Duration.ofMinutes(5L * i));
            String json = "{\"deviceId\":\"dev\",\"timestamp\":\"" + at + "\",\"v\":" + i + "}";
            kinesis.putRecord(b ->
                    b.streamName(stream).partitionKey("p").data(SdkBytes.fromString(json, StandardCharsets.UTF_8)));
            expected.merge(naming.periodTableOf(at), 1, Integer::sum);
        }
    }

    /** {@value #PER_SHARD} readings of 1 KB per shard, over one hour of event time, in PutRecords of 250. */
    private static void putBacklog(String stream, Map<String, Integer> expected, TableNaming naming) {
        List<String> hashKeys = List.of("0", BigInteger.ONE.shiftLeft(127).toString());
        for (int s = 0; s < hashKeys.size(); s++) {
            List<PutRecordsRequestEntry> batch = new ArrayList<>();
            for (int i = 0; i < PER_SHARD; i++) {
                Instant at = T0.plusMillis(i * 600L);
                String json = "{\"deviceId\":\"dev-" + s + "-" + (i % 50) + "\",\"timestamp\":\"" + at + "\",\"v\":" + i
                        + ",\"pad\":\"" + PADDING + "\"}";
                batch.add(PutRecordsRequestEntry.builder()
                        .partitionKey("p")
                        .explicitHashKey(hashKeys.get(s))
                        .data(SdkBytes.fromString(json, StandardCharsets.UTF_8))
                        .build());
                expected.merge(naming.periodTableOf(at), 1, Integer::sum);
                if (batch.size() == 250) {
                    List<PutRecordsRequestEntry> records = List.copyOf(batch);
                    assertThat(kinesis.putRecords(b -> b.streamName(stream).records(records))
                                    .failedRecordCount())
                            .isZero();
                    batch.clear();
                }
            }
        }
    }

    private static Map<String, Integer> counts(TableNaming naming) {
        return KinesisJobs.counts(dynamo, naming);
    }
}
