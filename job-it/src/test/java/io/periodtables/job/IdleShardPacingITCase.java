package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.CountingProxy;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.Kinesalite;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.Shard;

/**
 * Idle shards cost little: the job as the jar runs it reads a 2-shard kinesalite stream with one
 * source subtask, one shard busy (a backlog, then a producer for a few seconds), the other empty.
 * Counted at the emulator by a {@link CountingProxy} that follows each shard's iterators: the idle
 * shard gets at most one GetRecords per second on average (Kinesis allows 5 per shard, shared by all
 * consumers), and every reading put on the busy shard is stored.
 */
class IdleShardPacingITCase {
    private static final Logger LOG = LoggerFactory.getLogger(IdleShardPacingITCase.class);

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(1)
            .setConfiguration(LoopbackFlink.configuration("0"))
            .build());

    private static final String STREAM = "pacing";
    private static final Instant T0 = Instant.parse("2025-06-01T08:00:00Z");
    private static final int BACKLOG = 1000;
    private static final int LIVE_BATCHES = 16;
    private static final int LIVE_BATCH = 100;
    private static final Duration BOUND = Duration.ofSeconds(90);

    private static Kinesalite kinesalite;
    private static CountingProxy kinesisProxy;

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static Dynalite dynamoDb;
    private static DynamoDbClient dynamo;
    private static KinesisClient kinesis;

    private int put;

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
    void anIdleShardGetsAtMostFourReadsASecondWhileTheBusyShardLosesNothing() throws Exception {
        String arn = kinesalite.createStream(STREAM, 2);
        PeriodTablesConfig config = PeriodTablesJob.configure(
                new String[] {
                    "--source", "kinesis",
                    "--kinesis.stream-arn", arn,
                    "--kinesis.endpoint", kinesisProxy.endpoint().toString(),
                    "--kinesis.initial-position", "TRIM_HORIZON",
                    "--dynamodb.endpoint", dynamoDb.endpoint().toString(),
                    "--tables.prefix", "pacing",
                    "--tables.period", "PT1H",
                    "--tables.shards", "1"
                },
                false);
        String busy = putReadings(BACKLOG);
        String idle = kinesis.listShards(b -> b.streamName(STREAM)).shards().stream()
                .map(Shard::shardId)
                .filter(id -> !id.equals(busy))
                .findFirst()
                .orElseThrow();
        String table = config.naming().periodTableOf(T0);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        PeriodTablesTopology.build(env, config, Clock.systemUTC());
        JobClient job = env.executeAsync("period-tables");
        try {
            // The window starts once the source reads both shards.
            assertThat(TableContents.eventually(
                            BOUND, () -> kinesisProxy.getRecordsByShard().containsKey(idle)))
                    .isTrue();
            long start = System.nanoTime();
            long idleBefore = kinesisProxy.getRecordsByShard().get(idle);
            for (int i = 0; i < LIVE_BATCHES; i++) { // the busy shard is live: each batch is read before the next
                putReadings(LIVE_BATCH);
                awaitReadsOf(busy, 2);
            }
            boolean stored = TableContents.eventually(
                    BOUND, () -> TableContents.items(dynamo, table).size() == put);
            awaitReadsOf(busy, 8); // and idle for a moment: both shards empty, each rested between reads
            double seconds = (System.nanoTime() - start) / 1e9;
            Map<String, Long> calls = kinesisProxy.getRecordsByShard();
            long idleCalls = calls.get(idle) - idleBefore;
            LOG.info(
                    "GetRecords by shard since the job started {}; on the idle shard {} in {} s of the window = {}/s",
                    calls,
                    idleCalls,
                    String.format("%.1f", seconds),
                    String.format("%.2f", idleCalls / seconds));

            assertThat(TableContents.items(dynamo, table))
                    .as("readings stored (in time: %s)", stored)
                    .hasSize(put);
            assertThat(idleCalls)
                    .as("GetRecords on the idle shard in %.1f s", seconds)
                    .isPositive()
                    .isLessThanOrEqualTo((long) Math.ceil(seconds) + 1);
            assertThat(calls.get(busy)).isPositive();
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /** Waits until {@code shard} has been read {@code reads} more times. */
    private static void awaitReadsOf(String shard, long reads) {
        long before = kinesisProxy.getRecordsByShard().getOrDefault(shard, 0L);
        await().atMost(BOUND)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> kinesisProxy.getRecordsByShard().getOrDefault(shard, 0L) >= before + reads);
    }

    /** Puts the next {@code count} readings (one a second of event time, 10 devices) on shard 0; returns its id. */
    private String putReadings(int count) {
        List<PutRecordsRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < count; i++, put++) {
            String json = "{\"deviceId\":\"dev-" + put % 10 + "\",\"timestamp\":\"" + T0.plusSeconds(put)
                    + "\",\"temp\":" + put + "}";
            entries.add(PutRecordsRequestEntry.builder()
                    .partitionKey("p")
                    .explicitHashKey("0")
                    .data(SdkBytes.fromString(json, StandardCharsets.UTF_8))
                    .build());
        }
        String shard = null;
        for (int from = 0; from < entries.size(); from += 500) {
            List<PutRecordsRequestEntry> chunk = entries.subList(from, Math.min(from + 500, entries.size()));
            PutRecordsResponse response =
                    kinesis.putRecords(b -> b.streamName(STREAM).records(chunk));
            assertThat(response.failedRecordCount()).isZero();
            shard = response.records().get(0).shardId();
        }
        return shard;
    }
}
