package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.periodtables.archive.ArchiveReader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.job.RollupCheck;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongPredicate;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What is derived from the readings — rollups and the latest table — agrees with what the period
 * tables hold (DESIGN.md "What derived data promises"), on the production topology: when a
 * reading is refused after parsing, when the input pauses, and when the stream is replayed from a
 * later position. Every expectation is computed from the stored items by {@link RollupCheck}.
 */
class DerivedDataITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final Duration BOUND = Duration.ofSeconds(90);

    /**
     * A 450 KB reading (its item over DynamoDB's 400 KB) is rejected as {@code item-too-large}
     * and counted in no rollup bucket, named by no latest item and archived in no row.
     */
    @Test
    void aReadingTooLargeToStoreIsInNoRollupNoLatestAndNoArchiveRow(@TempDir Path archive) throws Exception {
        TestInput input = Fleet.standard();
        input.reading(
                "dev-4",
                Instant.parse("2025-06-01T10:59:59Z"),
                "\"temp\":99.5,\"blob\":" + TestInput.quote("x".repeat(450 * 1024)));
        PeriodTablesConfig config = ReliabilityRun.config(
                DYNAMODB.emulator().endpoint(),
                "derived_big",
                "rollups.every",
                "PT15M,PT1H",
                "archive.path",
                archive.toUri().toString());
        ReliabilityRun run = ReliabilityRun.of(config, input);
        run.execute(new TestSource.Hooks(), env -> env.enableCheckpointing(200));
        TableSnapshot tables = run.assertExactlyOnce(DYNAMODB.emulator());
        assertThat(tables.items().keySet())
                .as("the refused reading's rejection")
                .anySatisfy(ref -> assertThat(ref.pk()).startsWith("item-too-large#"));
        ArchiveCheck.assertMatchesTables(run, new ArchiveReader(archive.toUri().toString()), DYNAMODB.emulator());

        Map<String, List<Map<String, AttributeValue>>> items = tables.readingsByTable(run.config.naming());
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            assertThat(RollupCheck.stored(client, run.config))
                    .as("rollups")
                    .isNotEmpty()
                    .isEqualTo(RollupCheck.expected(run.config, items, end -> true));
            assertThat(RollupCheck.latest(client, run.config))
                    .as("latest")
                    .isEqualTo(RollupCheck.expectedLatest(run.config, items));
        }
    }

    /**
     * A device's newest reading is an {@code eventId} resent with another payload: its period
     * table keeps the last one sent, and so does the latest table. One source reader, so the
     * order in which the two arrive is the input's.
     */
    @Test
    void theLatestTableKeepsTheLastSentPayloadOfAResentEventIdAsItsTableDoes() throws Exception {
        TestInput input = Fleet.standard();
        Instant newest = Instant.parse("2025-06-01T10:59:58Z");
        for (int temp = 1; temp <= 2; temp++) {
            input.json("{\"deviceId\":\"dev-3\",\"timestamp\":\"" + newest + "\",\"eventId\":\"e-last\",\"temp\":"
                    + temp + "}");
        }
        PeriodTablesConfig config = config("derived_resend");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        TestSource.build(env, config, input, new TestSource.Hooks());
        env.execute("resend");
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            Map<String, List<Map<String, AttributeValue>>> items =
                    TableSnapshot.read(client, config.naming()).readingsByTable(config.naming());
            Map<String, String> latest = RollupCheck.latest(client, config);
            assertThat(latest).isEqualTo(RollupCheck.expectedLatest(config, items));
            assertThat(latest.get("dev-3")).endsWith("{\"temp\":2}");
        }
    }

    /**
     * The input pauses (the source holds its last record) with the watermark past three of the
     * period's four PT15M buckets: those buckets are written, complete, though no further reading
     * and no further watermark advance comes.
     */
    @Test
    void bucketsTheWatermarkPassedAreWrittenWhileTheInputPauses() throws Exception {
        Instant t0 = Instant.parse("2025-06-01T08:00:00Z");
        TestInput input = new TestInput();
        for (int minute = 0; minute < 45; minute++) {
            for (int d = 0; d < 6; d++) {
                input.reading(
                        "dev-" + d, t0.plus(Duration.ofMinutes(minute)).plusMillis(d * 1001L), "\"temp\":" + minute);
            }
        }
        input.reading("dev-9", Instant.parse("2025-06-01T08:58:00Z"), "\"temp\":1"); // the watermark to 08:57:55
        input.reading("dev-9", Instant.parse("2025-06-01T08:59:00Z"), "\"temp\":2"); // held: never sent
        ReliabilityRun run = ReliabilityRun.of(config("derived_pause"), input);
        long sent = 45 * 6 + 1;
        Instant passed = Instant.parse("2025-06-01T08:45:00Z");
        LongPredicate ended = end -> end <= passed.toEpochMilli();

        JobClient job = submitHeld(run, sent);
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            await("the buckets ended by 08:45 written as the stored items give them")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> {
                        Map<String, List<Map<String, AttributeValue>>> items =
                                TableSnapshot.read(client, run.config.naming()).readingsByTable(run.config.naming());
                        assertThat(items.values().stream().mapToLong(List::size).sum())
                                .as("stored")
                                .isEqualTo(sent);
                        Map<String, String> expected = RollupCheck.expected(run.config, items, ended);
                        assertThat(expected).as("expected buckets").hasSize(6 * 3);
                        assertThat(RollupCheck.stored(client, run.config, ended))
                                .isEqualTo(expected);
                    });
        } finally {
            ArchiveCheck.cancelIfRunning(job);
        }
    }

    /**
     * A second job, without state, reads the stream from a later position (the second half of its
     * records): every bucket stays as the first run wrote it from the whole stream, none shrinks.
     */
    @Test
    void aReplayFromALaterPositionLeavesEveryRollupBucketUnchanged() throws Exception {
        ReliabilityRun whole = ReliabilityRun.of(config("derived_replay"), Fleet.standard());
        whole.execute();
        Map<String, String> first;
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            first = RollupCheck.stored(client, whole.config);
        }
        assertThat(first).isNotEmpty();

        TestInput later = new TestInput();
        List<byte[]> records = Fleet.standard().data();
        records.subList(records.size() / 2, records.size()).forEach(later::bytes);
        ReliabilityRun replay = ReliabilityRun.of(whole.config, later);
        replay.execute();

        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            assertThat(RollupCheck.stored(client, whole.config)).isEqualTo(first);
        }
    }

    /**
     * PT15M periods and the default input.max-future of an hour: a reading 35 minutes ahead of
     * the wall clock is in no table (its period is after the next one) and so in no rollup; it is
     * in the rejected table as {@code ahead-of-watermark}.
     */
    @Test
    void aReadingForAPeriodAfterTheNextOneIsRejectedAndInNoRollup() throws Exception {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        TestInput input = new TestInput();
        for (int step = 20; step > 0; step--) {
            for (int d = 0; d < 3; d++) {
                input.reading("dev-" + d, now.minusSeconds(30L * step + d), "\"temp\":" + step);
            }
        }
        input.reading("dev-0", now.plus(Duration.ofMinutes(35)), "\"temp\":99");
        PeriodTablesConfig config = ReliabilityRun.config(
                DYNAMODB.emulator().endpoint(),
                "derived_ahead",
                "tables.period",
                "PT15M",
                "rotation.lead",
                "PT5M",
                "rollups.every",
                "PT5M");
        ReliabilityRun run = ReliabilityRun.of(config, input);
        run.execute();

        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            TableSnapshot tables = TableSnapshot.read(client, config.naming());
            assertThat(tables.items().keySet())
                    .as("the ahead reading's rejection")
                    .filteredOn(ref -> ref.table().equals(config.naming().rejectedTable()))
                    .singleElement()
                    .satisfies(ref -> assertThat(ref.pk()).startsWith("ahead-of-watermark#"));
            Map<String, List<Map<String, AttributeValue>>> items = tables.readingsByTable(config.naming());
            assertThat(items.values().stream().mapToLong(List::size).sum())
                    .as("stored readings")
                    .isEqualTo(60);
            assertThat(RollupCheck.stored(client, config))
                    .isNotEmpty()
                    .isEqualTo(RollupCheck.expected(config, items, end -> true));
            assertThat(RollupCheck.latest(client, config)).isEqualTo(RollupCheck.expectedLatest(config, items));
        }
    }

    private static PeriodTablesConfig config(String prefix) {
        return ReliabilityRun.config(DYNAMODB.emulator().endpoint(), prefix, "rollups.every", "PT15M,PT1H");
    }

    /** Runs {@code run} at parallelism 1 with a source that sends its first {@code sent} elements, then holds. */
    private static JobClient submitHeld(ReliabilityRun run, long sent) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        TestSource.Hooks hooks = new TestSource.Hooks();
        hooks.rate = new HoldAfter(sent);
        TestSource.build(env, run.config, run.input, hooks);
        return env.executeAsync("held " + run.config.naming().prefix());
    }

    /** Lets {@code count} elements through, then none: the input pauses without ending. */
    private record HoldAfter(long count) implements RateLimiterStrategy {
        @Override
        public RateLimiter createRateLimiter(int parallelism) {
            return new RateLimiter() {
                private long given;

                @Override
                public CompletionStage<Void> acquire() {
                    return given++ < count ? CompletableFuture.completedFuture(null) : new CompletableFuture<>();
                }

                @Override
                public void notifyCheckpointComplete(long checkpointId) {}
            };
        }
    }
}
