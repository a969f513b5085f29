package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.emulators.SeenRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * A backfill on the production topology with DynamoDB's write capacity and decrease quota
 * enforced (dynalite's fidelity layer, 1 s of burst): three hours of readings reach a sink that
 * holds few entries, from a source ten times faster than the open tier's 50 WCU, and a fourth
 * hour closes the third. Each hour's backlog is still being written when the watermark closes it.
 * In every checkpointing mode a closed table keeps its capacity until the writers have written
 * it through, then goes down once or twice (current → previous → older) and never up again; every
 * reading is stored once; the final capacities are exact, and the same in every run: 08:00 and
 * 09:00 older, 10:00 previous, 11:00 open at the capacity sized from 08:00's peak (10 writes a
 * second of event time: {@code ceil(10 / 0.7)} = 15 WCU, the fleet's rate; the backfill's
 * wall-clock rate, about 500 a second, does not count), whatever the mode, the parallelism or the
 * timing.
 */
class LoweringAfterAcknowledgedWritesITCase {
    private static final Logger LOG = LoggerFactory.getLogger(LoweringAfterAcknowledgedWritesITCase.class);
    private static final Instant T0 = Instant.parse("2025-06-01T08:00:00Z");
    private static final int PER_HOUR = 300;
    /** The final capacity of each table, by label, the same in every run. */
    private static final Map<String, String> FINAL = Map.of(
            "2025-06-01T0800", "1/1",
            "2025-06-01T0900", "1/1",
            "2025-06-01T1000", "5/5",
            "2025-06-01T1100", "15/5");

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
        DYNAMODB.emulator().layer().burst(Duration.ofSeconds(1)); // each table takes its WCU a second, hardly more
    }

    @ParameterizedTest(name = "checkpointing {0}")
    @EnumSource(Checkpointing.class)
    void closedTablesAreLoweredOnlyAfterTheirWritesAreAcknowledgedAndNeverRaised(Checkpointing mode) throws Exception {
        Map<String, String> capacities = backfill("rel_acked_" + mode.name().toLowerCase(Locale.ROOT), mode.setup);
        assertThat(capacities).isEqualTo(FINAL);
    }

    @Test
    void theSameBackfillGivesTheSameCapacitiesInEveryRunAndAtAnyParallelism() throws Exception {
        Map<String, String> first = backfill("rel_again_1", env -> env.setParallelism(1));
        Map<String, String> second = backfill("rel_again_2", env -> env.setParallelism(1));
        Map<String, String> wider = backfill("rel_again_3", env -> env.setParallelism(2));
        assertThat(second).isEqualTo(first);
        assertThat(wider).isEqualTo(first);
        assertThat(first).isEqualTo(FINAL);
    }

    /** Runs the backfill under {@code prefix}, checks what holds in any run, returns each table's final capacity by label. */
    private static Map<String, String> backfill(String prefix, Consumer<StreamExecutionEnvironment> setup)
            throws Exception {
        PeriodTablesConfig config = ReliabilityRun.config(
                DYNAMODB.emulator().endpoint(),
                prefix,
                "tables.capacity.current",
                "50/5",
                "tables.capacity.previous",
                "5/5",
                "tables.capacity.older",
                "1/1",
                "tables.capacity.current.min",
                "2/1",
                "tables.capacity.current.max",
                "15/5",
                "tables.capacity.autoscaling",
                "false",
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
        TestInput input = new TestInput();
        for (int i = 0; i < PER_HOUR; i++) { // 08:00:00-08:00:29, ten readings a second: the peak 11:00 is sized from
            input.reading("dev-" + i % 6, T0.plusMillis(100L * i), "\"v\":" + i);
        }
        for (int hour = 1; hour <= 2; hour++) { // 09:00 and 10:00: a reading every 12 s
            for (int i = 0; i < PER_HOUR; i++) {
                input.reading("dev-" + i % 6, T0.plus(Duration.ofHours(hour)).plusSeconds(12L * i), "\"v\":" + i);
            }
        }
        for (int i = 0; i < 30; i++) { // 11:00-11:10: the watermark closes 10:00 (at 11:00:59.999)
            input.reading("dev-" + i % 6, T0.plus(Duration.ofHours(3)).plusSeconds(20L * i), "\"v\":" + i);
        }
        TestSource.Hooks hooks = new TestSource.Hooks();
        hooks.rate = new PhasedRate(0, 500); // ten times the open tier's 50 WCU
        ReliabilityRun run = ReliabilityRun.of(config, input).execute(hooks, setup);

        TableSnapshot tables = run.assertExactlyOnce(DYNAMODB.emulator());
        Map<String, String> capacities = new TreeMap<>();
        StringBuilder summary = new StringBuilder();
        for (String table : tables.tables()) {
            if (config.naming()
                    .parse(table)
                    .filter(ref -> ref.kind() == io.periodtables.core.period.TableNaming.TableRef.Kind.PERIOD)
                    .isEmpty()) {
                continue; // the late and rejected tables are on-demand
            }
            String label = table.substring(prefix.length() + 1);
            TableDescription description =
                    DYNAMODB.client().describeTable(b -> b.tableName(table)).table();
            long decreases = description.provisionedThroughput().numberOfDecreasesToday();
            long updates = updates(run.requests(), table);
            capacities.put(
                    label,
                    description.provisionedThroughput().writeCapacityUnits() + "/"
                            + description.provisionedThroughput().readCapacityUnits());
            summary.append(label)
                    .append(' ')
                    .append(capacities.get(label))
                    .append(" after ")
                    .append(updates)
                    .append(" updates, ")
                    .append(decreases)
                    .append(" decreases; ");
            if (!label.equals("2025-06-01T1100")) { // the closed tables
                assertThat(decreases)
                        .as("%s lowered at most twice: current, previous, older", table)
                        .isBetween(1L, 2L);
                assertThat(updates)
                        .as("%s: every UpdateTable was a decrease DynamoDB took, none raised it back", table)
                        .isEqualTo(decreases);
                assertThat(writesAfterFirstDecrease(run.requests(), table))
                        .as("%s: BatchWriteItem calls sent after its first decrease", table)
                        .isZero();
            }
        }
        LOG.info(
                "{}: run {} ms; {}",
                prefix,
                Duration.between(run.start, run.end).toMillis(),
                summary);
        assertThat(tables.itemsOf(config.naming().periodTableOf(T0))).hasSize(PER_HOUR);
        return capacities;
    }

    /** In the order DynamoDB answered them: writes to {@code table} answered after its first UpdateTable. */
    private static long writesAfterFirstDecrease(List<SeenRequest> requests, String table) {
        int first = -1;
        for (int i = 0; i < requests.size() && first < 0; i++) {
            if (requests.get(i).operation().equals("UpdateTable")
                    && requests.get(i).tables().contains(table)) {
                first = i;
            }
        }
        return first < 0
                ? 0
                : requests.subList(first, requests.size()).stream()
                        .filter(r -> r.operation().equals("BatchWriteItem")
                                && r.tables().contains(table))
                        .count();
    }

    private static long updates(List<SeenRequest> requests, String table) {
        return requests.stream()
                .filter(r -> r.operation().equals("UpdateTable") && r.tables().contains(table))
                .count();
    }
}
