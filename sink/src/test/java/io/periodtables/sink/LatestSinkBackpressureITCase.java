package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.dynamodb.LatestTable;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.emulators.FaultRule;
import io.periodtables.emulators.FidelityLayer.AboveTableQuota;
import io.periodtables.emulators.LoopbackFlink;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import io.periodtables.sink.latest.LatestSink;
import io.periodtables.sink.latest.LatestWriter;
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
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The latest writer when DynamoDB falls behind: a latest table that answers slowly (each put
 * held 2 s, faults on top of dynalite) or refuses every put for a while (throttled). The source
 * is chained to the writer (parallelism 1), so a reading's emission is its {@code write()} and
 * {@link LatestVersions} sees what the writer holds; the source goes round the fleet in order,
 * each reading a newer version of its device.
 */
class LatestSinkBackpressureITCase {
    private static final Logger LOG = LoggerFactory.getLogger(LatestSinkBackpressureITCase.class);

    private static final Instant HOUR = Instant.parse("2026-11-22T13:00:00Z");
    private static final Duration BOUND = Duration.ofSeconds(120);

    private static final InMemoryReporter METRICS = InMemoryReporter.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .setConfiguration(METRICS.addToConfiguration(LoopbackFlink.configuration("0")))
            .build());

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    @BeforeEach
    void reset() {
        DynamoDbFaults.reset();
        LatestVersions.reset();
    }

    /**
     * 40 devices, each with a new reading every 100 ms for 10 s, into a latest table whose puts
     * take 2 s each: 16 puts/s at most, fewer than the 40 devices that change every second. The
     * writer keeps one waiting version per device, puts none it already knows to be stale, and
     * the table ends with every device's newest reading.
     */
    @Test
    void slowLatestTableHoldsAtMostOneVersionPerDeviceAndEndsWithEachDevicesNewest() throws Exception {
        int devices = 40;
        int n = 4_000;
        PeriodTablesConfig config = config();
        DynamoDbFaults.on("PutItem")
                .table(config.naming().latestTable())
                .always()
                .delay(Duration.ofSeconds(2));

        submit(config, devices, n, 400, LatestWriter.MAX_PENDING)
                .getJobExecutionResult()
                .get(BOUND.toSeconds(), TimeUnit.SECONDS);

        int held = LatestVersions.mostHeldAtOnce();
        long stale = LatestVersions.stalePuts(devices);
        LOG.info(
                "slow table: {} puts, at most {} versions held at once, {} stale puts",
                LatestVersions.puts(),
                held,
                stale);
        assertThat(held)
                .as("readings the writer held at once while the table was slow (%d devices)", devices)
                .isLessThanOrEqualTo(devices);
        assertThat(stale)
                .as("puts of a version older than one the writer had already been given")
                .isZero();
        assertNewestStored(config, devices, n);
    }

    /**
     * 200 devices into writers that hold at most 50: while every put is throttled, the source
     * stops once the writer holds 50 devices (each with at most one reading waiting
     * and one in flight) instead of queueing more, its {@code latestPendingDevices} gauge shows
     * the writer full, and after it the table ends with each device's newest reading.
     */
    @Test
    void throttlingLatestTableStopsTheSourceAtTheWritersBound() throws Exception {
        int devices = 200;
        int n = 6_000;
        int maxPending = 50;
        PeriodTablesConfig config = config();

        JobClient job = submit(config, devices, n, 1_000, maxPending);
        await(() -> LatestVersions.puts() >= 200, "the first puts");
        long before = LatestVersions.emittedCount();
        FaultRule throttle = DynamoDbFaults.on("PutItem")
                .table(config.naming().latestTable())
                .always()
                .throttle();
        await(() -> throttle.injected() >= 3 * maxPending, "three refusals per held device");
        long whileThrottled = LatestVersions.emittedCount() - before;
        Object pendingDevices = pendingDevices(job);
        DynamoDbFaults.reset();
        job.getJobExecutionResult().get(BOUND.toSeconds(), TimeUnit.SECONDS);

        int held = LatestVersions.mostHeldAtOnce();
        LOG.info(
                "throttled table: {} readings emitted while throttled, at most {} versions held at once",
                whileThrottled,
                held);
        assertThat(whileThrottled)
                .as("readings the source emitted while every put was refused (%d refusals)", throttle.injected())
                .isLessThanOrEqualTo(2 * maxPending + 1);
        assertThat(held)
                .as("readings the writer held at once (waiting and in flight, at most one of each a device)")
                .isLessThanOrEqualTo(2 * maxPending);
        assertThat(pendingDevices)
                .as("%s while every put was refused", UserMetrics.LATEST_PENDING_DEVICES)
                .isEqualTo(maxPending);
        assertNewestStored(config, devices, n);
    }

    /**
     * {@code latest.warm-writes} above DynamoDB's per-table quota (40,000 here), with {@code
     * limits.max-table-units} claiming a higher one: the table cannot be created, and the job fails
     * at once with one line naming the key and the quota, whichever of the two plausible answers
     * DynamoDB gives (its documentation names none), instead of putting into a table that never
     * comes until its attempts run out.
     */
    @ParameterizedTest
    @EnumSource(
            value = AboveTableQuota.class,
            names = {"LIMIT_EXCEEDED", "VALIDATION"})
    void aWarmThroughputAboveThePerTableQuotaFailsTheJobNamingTheKey(AboveTableQuota answer) {
        DYNAMODB.emulator().layer().aboveTableQuota(answer);
        try {
            PeriodTablesConfig config = SinkTestBed.config(
                    DYNAMODB.emulator(), "latest.warm-writes", "50000", "limits.max-table-units", "50000");

            assertThatThrownBy(() -> submit(config, 5, 50, 100, LatestWriter.MAX_PENDING)
                            .getJobExecutionResult()
                            .get(60, TimeUnit.SECONDS))
                    .satisfies(failure -> assertThat(ExceptionUtils.findThrowableWithMessage(
                                    failure,
                                    "(latest.warm-writes = 50000) as above its per-table throughput quota, which is"
                                            + " below limits.max-table-units = 50000"))
                            .as("the job's failure")
                            .isPresent());
        } finally {
            DYNAMODB.emulator().layer().aboveTableQuota(AboveTableQuota.LIMIT_EXCEEDED);
        }
    }

    /** The writer's gauge of held devices, now. */
    private static Object pendingDevices(JobClient job) {
        Map<String, Metric> gauges = METRICS.findMetrics(job.getJobID(), ".*" + UserMetrics.LATEST_PENDING_DEVICES);
        assertThat(gauges)
                .as("the %s gauges", UserMetrics.LATEST_PENDING_DEVICES)
                .hasSize(1);
        return ((Gauge<?>) gauges.values().iterator().next()).getValue();
    }

    private static PeriodTablesConfig config() {
        // a put per changed device and second: more devices change than a slow table takes
        PeriodTablesConfig config =
                SinkTestBed.config(DYNAMODB.emulator(), "sink.request-timeout", "PT10S", "latest.interval", "PT1S");
        try (DynamoDbAsyncClient client = DynamoDbClients.of(config).newAsyncClient(1)) {
            new LatestTable(client, config.naming()).ensure().join();
        }
        return config;
    }

    /** Reading {@code i}: device {@code i % devices}, 10 ms after reading {@code i - 1}. */
    static Reading reading(long i, int devices) {
        return new Reading("dev-" + i % devices, HOUR.toEpochMilli() + i * 10, null, "{\"i\":" + i + "}");
    }

    private static JobClient submit(PeriodTablesConfig config, int devices, int n, double perSecond, int maxPending)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataGeneratorSource<SinkRecord> readings = new DataGeneratorSource<>(
                i -> {
                    LatestVersions.emitted(i);
                    return SinkRecord.period(reading(i, devices));
                },
                n,
                RateLimiterStrategy.perSecond(perSecond),
                TypeInformation.of(SinkRecord.class));
        LatestSink sink = new LatestSink(
                config,
                DynamoDbClients.of(config).withInterceptors(List.of(DynamoDbFaults.class, LatestVersions.class)),
                maxPending);
        env.fromSource(readings, WatermarkStrategy.noWatermarks(), "readings").sinkTo(sink);
        return env.executeAsync("latest sink test");
    }

    /** The latest table holds, for each device, its last reading of the input. */
    private static void assertNewestStored(PeriodTablesConfig config, int devices, int n) {
        Map<String, String> expected = new HashMap<>();
        Map<String, String> stored = new HashMap<>();
        for (long i = n - devices; i < n; i++) {
            Reading reading = reading(i, devices);
            expected.put(reading.deviceId(), Long.toString(i));
        }
        try (DynamoDbAsyncClient client = DynamoDbClients.of(config).newAsyncClient(1)) {
            LatestTable table = new LatestTable(client, config.naming());
            for (String device : expected.keySet()) {
                table.get(device)
                        .join()
                        .ifPresent(latest ->
                                stored.put(device, latest.reading().get("i").n()));
            }
        }
        assertThat(stored).as("each device's stored latest reading").isEqualTo(expected);
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
}
