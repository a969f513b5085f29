package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.emulators.FaultKind;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One table throttled for a sustained time while another takes writes (faults on top of
 * dynalite): the other table keeps its write rate, and nothing is lost or written twice,
 * also across a savepoint taken while throttled entries wait in the writer's delay queue.
 * Readings come from a rate-limited source, every fifth for table A (hour 13), the rest for
 * table B (hour 14); {@link AcknowledgedWrites} counts what DynamoDB acknowledged, per key.
 */
class PeriodTableSinkThrottlingITCase {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodTableSinkThrottlingITCase.class);

    private static final Instant HOUR_A = Instant.parse("2026-11-22T13:00:00Z");
    private static final Instant HOUR_B = Instant.parse("2026-11-22T14:00:00Z");
    private static final Duration BOUND = Duration.ofSeconds(90);

    @RegisterExtension
    static final MiniClusterExtension FLINK = SinkTestBed.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    @BeforeEach
    void reset() {
        DynamoDbFaults.reset();
        AcknowledgedWrites.reset();
    }

    /**
     * The production case is a table throttled for minutes; 12 seconds (2,400 of B's writes at
     * 200/s) keep the test short and are still dozens of A's backoff rounds (20 ms to 1 s). The
     * rate of B is measured against an unthrottled phase of the same run, as a ratio; the source
     * rate (250/s) stays well below what the sink writes on a loaded 2-core machine, so both
     * phases measure the sink keeping up, not a backlog draining.
     */
    @Test
    void tableThrottledForTwelveSecondsLeavesTheOtherTablesWriteRateAndEverythingIsWrittenOnce() throws Exception {
        int n = 4_750;
        PeriodTablesConfig config = SinkTestBed.config(DYNAMODB.emulator(), "sink.request-timeout", "PT10S");
        String a = config.naming().periodTableOf(HOUR_A);
        String b = config.naming().periodTableOf(HOUR_B);
        DynamoDbTables.create(DYNAMODB.client(), a, b);

        JobClient job = submit(config, n, 250, null);
        await(() -> AcknowledgedWrites.of(b) >= 200, "B's first writes");
        long[] unthrottled = rateOfB(b, 800);
        DynamoDbFaults.on("BatchWriteItem").table(a).always().throttle();
        long throttledSince = System.nanoTime();
        long[] throttled = rateOfB(b, 2_400);
        long throttledCalls = DynamoDbFaults.injected("BatchWriteItem", FaultKind.PROVISIONED_THROUGHPUT_EXCEEDED);
        long writtenToAWhileThrottled = AcknowledgedWrites.ofRequestsStartedSince(a, throttledSince);
        DynamoDbFaults.reset();
        job.getJobExecutionResult().get(BOUND.toSeconds(), TimeUnit.SECONDS);

        assertThat(throttledCalls).as("A was throttled throughout").isGreaterThan(10);
        assertThat(writtenToAWhileThrottled)
                .as("A's requests sent while it was throttled wrote nothing")
                .isZero();
        double ratio = ((double) throttled[0] / throttled[1]) / ((double) unthrottled[0] / unthrottled[1]);
        LOG.info(
                "B's write rate {}/s unthrottled, {}/s while A is throttled ({} throttled calls): ratio {}",
                unthrottled[0] * 1e9 / unthrottled[1],
                throttled[0] * 1e9 / throttled[1],
                throttledCalls,
                ratio);
        assertThat(ratio)
                .as("B's write rate while A is throttled, relative to before")
                .isGreaterThanOrEqualTo(0.8);
        assertWrittenOnce(config, n);
    }

    /**
     * A stop-with-savepoint while A is throttled: A's readings wait in the delay queue (none was
     * acknowledged) and the source has moved past many of them, so only the savepoint holds them.
     * The job restored from it, A no longer throttled, writes every reading exactly once.
     */
    @Test
    void savepointTakenWhileEntriesWaitInTheDelayQueueRestoresThemNothingLostNothingDoubled(@TempDir Path savepoints)
            throws Exception {
        int n = 4_000;
        PeriodTablesConfig config = SinkTestBed.config(DYNAMODB.emulator(), "sink.request-timeout", "PT10S");
        String a = config.naming().periodTableOf(HOUR_A);
        String b = config.naming().periodTableOf(HOUR_B);
        DynamoDbTables.create(DYNAMODB.client(), a, b);
        DynamoDbFaults.on("BatchWriteItem").table(a).always().throttle();

        // 40 s of input: the savepoint comes long before the end of input, which would drain the queue
        JobClient first = submit(config, n, 100, null);
        await(
                () -> AcknowledgedWrites.of(b) >= 200
                        && DynamoDbFaults.injected("BatchWriteItem", FaultKind.PROVISIONED_THROUGHPUT_EXCEEDED) >= 5,
                "A throttled");
        String savepoint = first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                .get(BOUND.toSeconds(), TimeUnit.SECONDS);
        long writtenToB = AcknowledgedWrites.of(b);
        assertThat(AcknowledgedWrites.of(a))
                .as("A's readings before the savepoint are all unwritten")
                .isZero();
        assertThat(writtenToB).as("the first run stopped mid-stream").isLessThan(n * 4 / 5);

        DynamoDbFaults.reset();
        submit(config, n, 100_000, savepoint).getJobExecutionResult().get(BOUND.toSeconds(), TimeUnit.SECONDS);

        assertWrittenOnce(config, n);
    }

    /** Reading {@code i}: every fifth for table A, the rest for B; 40 devices, one reading per 100 ms. */
    static Reading reading(long i) {
        Instant hour = i % 5 == 0 ? HOUR_A : HOUR_B;
        return new Reading("dev-" + i % 40, hour.toEpochMilli() + i * 100, null, "{\"i\":" + i + "}");
    }

    private static JobClient submit(PeriodTablesConfig config, int n, double perSecond, String savepoint)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        DataGeneratorSource<SinkRecord> readings = new DataGeneratorSource<>(
                i -> SinkRecord.period(reading(i)),
                n,
                RateLimiterStrategy.perSecond(perSecond),
                TypeInformation.of(SinkRecord.class));
        PeriodTableSink sink = SinkTestBed.sink(config)
                .retryBackoff(Duration.ofMillis(20), Duration.ofSeconds(1))
                .interceptors(List.of(DynamoDbFaults.class, AcknowledgedWrites.class))
                .build();
        env.fromSource(readings, WatermarkStrategy.noWatermarks(), "readings")
                .uid("readings")
                .setParallelism(1)
                .keyBy(SinkTestBed::keyOf)
                .sinkTo(sink)
                .uid("sink");
        StreamGraph graph = env.getStreamGraph();
        if (savepoint != null) {
            graph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint, false));
        }
        return env.executeAsync(graph);
    }

    /** Waits for B's next {@code writes} acknowledged writes: {writes, nanoseconds}. */
    private static long[] rateOfB(String b, int writes) throws InterruptedException {
        long from = AcknowledgedWrites.of(b);
        long start = System.nanoTime();
        await(() -> AcknowledgedWrites.of(b) >= from + writes, writes + " writes to B");
        return new long[] {AcknowledgedWrites.of(b) - from, System.nanoTime() - start};
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(deadline);
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
            if (Thread.interrupted()) {
                throw new InterruptedException(what);
            }
        }
    }

    /** Both tables hold exactly readings 0..n-1, and DynamoDB acknowledged each item once. */
    private static void assertWrittenOnce(PeriodTablesConfig config, int n) {
        Map<String, Map<List<String>, Map<String, AttributeValue>>> expected = new HashMap<>();
        for (int i = 0; i < n; i++) {
            Reading reading = reading(i);
            var key = config.sharding().keyOf(reading.deviceId(), reading.eventMillis(), null, reading.canonical());
            String table = config.naming().periodTableOf(Instant.ofEpochMilli(reading.eventMillis()));
            expected.computeIfAbsent(table, t -> new HashMap<>())
                    .put(
                            List.of(key.pk(), key.sk()),
                            Map.of(
                                    "pk",
                                    AttributeValue.fromS(key.pk()),
                                    "sk",
                                    AttributeValue.fromS(key.sk()),
                                    "i",
                                    AttributeValue.fromN(Integer.toString(i))));
        }
        expected.forEach((table, items) ->
                assertThat(DynamoDbTables.contents(DYNAMODB.client(), table)).isEqualTo(items));
        assertThat(AcknowledgedWrites.perKey())
                .hasSize(n)
                .allSatisfy(
                        (key, puts) -> assertThat(puts).as("puts of %s", key).isEqualTo(1));
    }
}
