package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.emulators.SeenRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * "No table is dialed down while readings for it are unwritten", in every checkpointing mode, in
 * the production wiring with DynamoDB's per-table write capacity enforced on top of DynamoDB
 * Local. An hour of readings (held by the window until its end) reaches a sink that holds few
 * entries and writes at the {@code current} tier's 50 items a second, then event time runs on
 * through one period every 2 s. The rotation dials each closed table down to 1 WCU (at once
 * without checkpointing; after a completed checkpoint otherwise), while the sink may still hold
 * or be about to receive readings for it: without checkpointing always for 08:00, in every mode
 * for some of the later tables (an aligned checkpoint leaves up to a batch in the sink's state,
 * an unaligned one the records in flight). Every table written after its dial-down must have got
 * its capacity back; every reading is stored once, late readings in the late table; 08:00, once
 * raised back, is lowered again.
 */
class DialDownWithBufferedEntriesITCase {
    private static final Logger LOG = LoggerFactory.getLogger(DialDownWithBufferedEntriesITCase.class);
    private static final Instant T0 = Instant.parse("2025-06-01T08:00:00Z");
    private static final int BACKLOG = 300;

    /** How the job checkpoints. */
    enum Checkpointing {
        NONE(env -> {}),
        ALIGNED(env -> env.enableCheckpointing(250)),
        UNALIGNED(env -> {
            env.enableCheckpointing(250);
            env.getCheckpointConfig().enableUnalignedCheckpoints();
        });

        final Consumer<StreamExecutionEnvironment> setup;

        Checkpointing(Consumer<StreamExecutionEnvironment> setup) {
            this.setup = setup;
        }
    }

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    @BeforeEach
    void clearFaults() {
        DynamoDbFaults.reset();
    }

    @ParameterizedTest(name = "checkpointing {0}")
    @EnumSource(Checkpointing.class)
    void aTableClosedWithABacklogInTheSinkGetsItWrittenOnceAndEndsAtItsLowerTier(Checkpointing mode) throws Exception {
        // Each provisioned table takes 50 items a second (1 s of burst), closed ones 1.
        DYNAMODB.emulator()
                .layer()
                .burst(Duration.ofSeconds(1)); // the fidelity layer's write capacity, a second of burst
        PeriodTablesConfig config = ReliabilityRun.config(
                DYNAMODB.emulator().endpoint(),
                "rel_backlog_" + mode.name().toLowerCase(Locale.ROOT),
                "tables.capacity.current",
                "50/5",
                "tables.capacity.previous",
                "1/1",
                "tables.capacity.older",
                "1/1",
                // open tables at exactly the current tier: this case is about dial-down, not sizing from the peak
                "tables.capacity.current.min",
                "50/5",
                "tables.capacity.current.max",
                "50/5",
                "window.allowed-lateness",
                "PT1M",
                "rotation.lead",
                "PT3S",
                "sink.max-buffered",
                "50",
                "sink.max-in-flight",
                "1",
                "window.fire-count",
                "1000",
                "window.fire-delay",
                "PT30S");
        String closed = config.naming().periodTableOf(T0);
        TestInput input = new TestInput();
        for (int i = 0; i < BACKLOG; i++) { // 08:00-08:59: six seconds of writes at the current tier
            input.reading("dev-" + i % 6, T0.plusSeconds(12L * i), "\"v\":" + i);
        }
        for (int i = 0; i < 30; i++) { // 09:00-09:10: the watermark passes 09:01, 08:00 closes
            input.reading("dev-" + i % 6, T0.plus(Duration.ofHours(1)).plusSeconds(20L * i), "\"v\":" + i);
        }
        for (int i = 0; i < 5; i++) { // past 08:00's grace: the late table
            input.reading("late-" + i, T0.plus(Duration.ofMinutes(30)).plusSeconds(i), "\"late\":" + i);
        }
        int tail = 300;
        for (int i = 0; i < tail; i++) { // 10:00-17:29 at 20 a second: a rotation pass every 2 s
            input.reading("dev-" + i % 6, T0.plus(Duration.ofHours(2)).plusSeconds(90L * i), "\"v\":" + i);
        }

        TestSource.Hooks hooks = new TestSource.Hooks();
        hooks.rate = new PhasedRate(input.size() - tail, 20);
        ReliabilityRun run = ReliabilityRun.of(config, input).execute(hooks, mode.setup);

        TableSnapshot tables = run.assertExactlyOnce(DYNAMODB.emulator());
        assertThat(tables.itemsOf(closed)).hasSize(BACKLOG);
        assertThat(tables.itemsOf(ExpectedTables.LATE)).hasSize(5);
        Map<String, long[]> lowered = writesAfterFirstUpdate(run.requests(), tables.tables());
        String summary = lowered.entrySet().stream()
                .map(e -> e.getKey().substring(e.getKey().lastIndexOf('_') + 1) + " " + e.getValue()[0] + " updates/"
                        + e.getValue()[1] + " throttled")
                .collect(Collectors.joining(", "));
        LOG.info(
                "checkpointing {}: run {} ms; per table, UpdateTable calls and writes throttled after the first: {}",
                mode,
                Duration.between(run.start, run.end).toMillis(),
                summary);
        lowered.forEach((table, counts) -> assertThat(counts[0])
                .as(
                        "%s was written after it was dialed down (%s throttled writes): it got its capacity back",
                        table, counts[1])
                .isGreaterThanOrEqualTo(counts[1] > 0 ? 2 : 0));
        if (mode == Checkpointing.NONE) {
            assertThat(lowered.get(closed)[1])
                    .as("without checkpoints 08:00 is dialed down with its readings unwritten")
                    .isPositive();
        }
        // Raised back for the sink, the closed table is lowered again once it has gone rotation.lead
        // without a raise: so a raise (second UpdateTable) is followed by a lowering (third), and it
        // ends at one of its two tiers (a bounded input can end within rotation.lead of a raise).
        long[] closedCounts = lowered.get(closed);
        assertThat(closedCounts).as("08:00 was dialed down").isNotNull();
        if (closedCounts[0] >= 2) {
            assertThat(closedCounts[0])
                    .as("08:00 lowered again after it was raised back")
                    .isGreaterThanOrEqualTo(3);
        }
        long finalWcu = DYNAMODB.client()
                .describeTable(b -> b.tableName(closed))
                .table()
                .provisionedThroughput()
                .writeCapacityUnits();
        assertThat(finalWcu)
                .as("the closed table ends at its lower tier, or at the current one if raised at the very end")
                .isIn(1L, 50L);
    }

    /** Per period table: UpdateTable calls, and BatchWriteItem calls naming it throttled after its first UpdateTable. */
    private static Map<String, long[]> writesAfterFirstUpdate(List<SeenRequest> requests, Set<String> tables) {
        Map<String, long[]> counts = new TreeMap<>();
        for (String table : tables) {
            List<SeenRequest> updates = requests.stream()
                    .filter(r ->
                            r.operation().equals("UpdateTable") && r.tables().contains(table))
                    .toList();
            if (updates.isEmpty()) {
                continue;
            }
            Instant first = updates.get(0).at();
            long throttled = requests.stream()
                    .filter(r -> r.operation().equals("BatchWriteItem")
                            && r.tables().contains(table)
                            && r.at().isAfter(first)
                            && r.throttled())
                    .count();
            counts.put(table, new long[] {updates.size(), throttled});
        }
        return counts;
    }
}
