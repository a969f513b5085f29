package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.model.SinkRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Process faults on the MiniCluster: a task that fails mid-stream and is restored from its last
 * checkpoint, and dynalite gone for 20 seconds (same port, same data directory) while the
 * job runs. Each ends with the exactly-once check.
 */
class ProcessFaultsITCase {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessFaultsITCase.class);

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @TempDir
    static Path dataDir;

    private static Dynalite dynamoDb;

    @BeforeAll
    static void startDynamoDb() {
        dynamoDb = Dynalite.start(dataDir);
    }

    @AfterAll
    static void stopDynamoDb() {
        dynamoDb.close();
    }

    @BeforeEach
    void clearFaults() {
        DynamoDbFaults.reset();
    }

    /** Checkpoints, and two restarts at most, as on Managed Service for Apache Flink (there unbounded). */
    static void checkpointsAndRestarts(StreamExecutionEnvironment env, Duration interval) {
        Configuration restart = new Configuration();
        restart.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        restart.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
        restart.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        env.configure(restart);
        env.enableCheckpointing(interval.toMillis());
    }

    @Test
    void aTaskFailingMidBatchIsRestoredFromItsCheckpointWithNothingLostOrDoubled() throws Exception {
        PeriodTablesConfig config = ReliabilityRun.config(dynamoDb.endpoint(), "rel_restore");
        TestSource.Hooks hooks = new TestSource.Hooks();
        // 60 records per checkpoint: the stream is mid-way when the first checkpoint completes.
        hooks.rate = RateLimiterStrategy.perCheckpoint(60);
        // Element 60 is emitted only once the first checkpoint has completed and opened the gate.
        hooks.fault = new FailOnceAt(60);
        FailOnceAt.reset();

        ReliabilityRun run = ReliabilityRun.of(config, Fleet.standard())
                .execute(hooks, env -> checkpointsAndRestarts(env, Duration.ofMillis(200)));

        assertThat(FailOnceAt.FAILED).as("the injected failure happened").isTrue();
        run.assertExactlyOnce(dynamoDb);
        // The failover kept the job id and raised every task's attempt: the restarted rotation
        // lowered the closed tables on the word of the restarted writers (last reading 10:57).
        assertThat(capacity(config.naming().periodTableOf(Fleet.T0))).isEqualTo("1/1");
        assertThat(capacity(config.naming().periodTableOf(Fleet.T0.plus(Duration.ofHours(1)))))
                .isEqualTo("1/100");
    }

    private static String capacity(String table) {
        try (DynamoDbClient client = dynamoDb.syncClient()) {
            var throughput =
                    client.describeTable(b -> b.tableName(table)).table().provisionedThroughput();
            return throughput.writeCapacityUnits() + "/" + throughput.readCapacityUnits();
        }
    }

    @Test
    void dynamoDbDownForTwentySecondsTheJobWaitsAndLosesNothing() throws Exception {
        // The default sink.max-attempts (100) with backoff up to 5 s outlasts the outage.
        PeriodTablesConfig config = ReliabilityRun.config(dynamoDb.endpoint(), "rel_outage");
        TestSource.Hooks hooks = new TestSource.Hooks();
        hooks.rate = RateLimiterStrategy.perSecond(40);

        ReliabilityRun.of(config, Fleet.standard())
                .executeUntilStored(dynamoDb, Duration.ofSeconds(90), hooks, env -> {}, job -> {
                    awaitFirstItem(config);
                    dynamoDb.stop();
                    LOG.info("dynalite stopped at {}", Instant.now());
                    Thread.sleep(Duration.ofSeconds(20).toMillis()); // the outage itself
                    dynamoDb.restart();
                    LOG.info("dynalite listening again at {} on {}", Instant.now(), dynamoDb.endpoint());
                    assertThat(job.getJobStatus().get().isGloballyTerminalState())
                            .as("the job outlived the outage")
                            .isFalse();
                });
    }

    /**
     * A reading that arrived late goes to the late table. If the job fails after writing it and
     * restores a checkpoint taken before it arrived, the reading is read again, and the restored
     * job must still treat it as late: Flink does not checkpoint watermarks, so a restored window
     * operator starts from no watermark and would put the replayed reading in its period table,
     * a second copy next to the one in the late table.
     */
    @Test
    void aLateReadingReplayedAfterARestoreIsNotStoredASecondTime() throws Exception {
        PeriodTablesConfig config = ReliabilityRun.config(dynamoDb.endpoint(), "rel_late_replay");
        TestInput input = new TestInput();
        for (int step = 0; step < 24; step++) { // 08:00-09:09, six devices: the watermark passes 09:05
            for (int d = 0; d < Fleet.DEVICES; d++) {
                input.reading(
                        "dev-" + d, Fleet.T0.plus(Fleet.STEP.multipliedBy(step)).plusMillis(d), Fleet.payload(step, d));
            }
        }
        int firstCycle = input.size();
        input.reading("dev-late", Instant.parse("2025-06-01T08:30:00Z"), "\"temp\":5"); // late: 08:00 closed at 09:05
        input.reading(FailOnceAfterLateWrite.MARKER, Instant.parse("2025-06-01T09:10:00Z"), "\"temp\":0");
        for (int d = 0; d < Fleet.DEVICES; d++) {
            input.reading("dev-" + d, Instant.parse("2025-06-01T09:12:00Z").plusMillis(d), "\"temp\":1");
        }
        ReliabilityRun run = ReliabilityRun.of(config, input);
        FailOnceAfterLateWrite.arm(() -> {
            try (DynamoDbClient client = dynamoDb.syncClient()) {
                return !TableSnapshot.read(client, config.naming())
                        .itemsOf(ExpectedTables.LATE)
                        .isEmpty();
            }
        });
        TestSource.Hooks hooks = new TestSource.Hooks();
        // The first checkpoint covers the on-time readings only; the late reading follows it.
        hooks.rate = RateLimiterStrategy.perCheckpoint(firstCycle);
        hooks.fault = new FailOnceAfterLateWrite();

        run.execute(hooks, env -> checkpointsAndRestarts(env, Duration.ofSeconds(1)));

        assertThat(run.expected.lateReadings()).isEqualTo(1);
        assertThat(FailOnceAfterLateWrite.LATE_WRITTEN_FIRST)
                .as("the late reading was written before the failure")
                .isTrue();
        run.assertExactlyOnce(dynamoDb);
    }

    private static void awaitFirstItem(PeriodTablesConfig config) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        try (DynamoDbClient client = dynamoDb.syncClient()) {
            while (TableSnapshot.read(client, config.naming()).size() == 0) {
                assertThat(Instant.now()).as("the job writes its first items").isBefore(deadline);
                Thread.sleep(100);
            }
        }
    }

    /**
     * Throws once, when the source reaches the marker reading, after waiting until the late
     * reading before it is in the late table: the task fails with the late write done and not
     * yet checkpointed.
     */
    static final class FailOnceAfterLateWrite implements TestSource.Fault {
        private static final long serialVersionUID = 1L;
        static final String MARKER = "marker";
        static final AtomicBoolean LATE_WRITTEN_FIRST = new AtomicBoolean();
        private static final AtomicBoolean FAILED = new AtomicBoolean();
        private static volatile BooleanSupplier lateWritten;

        static void arm(BooleanSupplier condition) {
            lateWritten = condition;
            FAILED.set(false);
            LATE_WRITTEN_FIRST.set(false);
        }

        @Override
        public void before(long n, SinkRecord record) throws InterruptedException {
            if (record.kind() != SinkRecord.Kind.REJECTED
                    && record.reading().deviceId().equals(MARKER)
                    && FAILED.compareAndSet(false, true)) {
                Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
                while (!lateWritten.getAsBoolean() && Instant.now().isBefore(deadline)) {
                    Thread.sleep(100);
                }
                LATE_WRITTEN_FIRST.set(lateWritten.getAsBoolean());
                throw new IllegalStateException("injected task failure after the late reading was written");
            }
        }
    }

    /** Throws once, before the source emits element {@code n}: a task failure mid-stream. */
    static final class FailOnceAt implements TestSource.Fault {
        private static final long serialVersionUID = 1L;
        static final AtomicBoolean FAILED = new AtomicBoolean();
        private final long at;

        FailOnceAt(long at) {
            this.at = at;
        }

        static void reset() {
            FAILED.set(false);
        }

        @Override
        public void before(long n, SinkRecord record) {
            if (n == at && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("injected task failure after a completed checkpoint");
            }
        }
    }
}
