package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.TableNaming;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.emulators.SeenRequest;
import io.periodtables.job.input.FleetGenerator;
import io.periodtables.job.input.ReadingParser;
import io.periodtables.model.Reading;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.Select;

/**
 * Savepoint-based redeploys (model: Flink's {@code SinkTestSuiteBase}): the job runs on the
 * synthetic fleet (a fixed start and count, so every item is known in advance: 1,800 readings of
 * 7 devices over 00:00-03:30 in event time), is stopped with a savepoint mid-stream and restored
 * with another parallelism or state backend. Afterwards the tables hold exactly the fleet's
 * items, and the restored rotation repeats no control-plane action the first run completed.
 *
 * <p>Every DynamoDB client of this JVM carries {@link DynamoDbFaults} (registered for the SDK in
 * {@code software/amazon/awssdk/services/dynamodb/execution.interceptors}), whose request log
 * shows which table each CreateTable and UpdateTable was for, and when.
 */
class SavepointRedeployITCase {
    private static final Logger LOG = LoggerFactory.getLogger(SavepointRedeployITCase.class);

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(4)
            .setConfiguration(LoopbackFlink.configuration("0"))
            .build());

    private static final int READINGS = 1800;
    private static final Duration BOUND = Duration.ofSeconds(60);
    /** The rotation counts as idle when it has made no control-plane call for this long. */
    private static final Duration QUIET = Duration.ofMillis(800);

    private static final Set<String> CONTROL_PLANE = Set.of(
            "CreateTable",
            "UpdateTable",
            "DescribeTable",
            "UpdateTimeToLive",
            "DescribeTimeToLive",
            "DeleteTable",
            "ListTables",
            "TagResource",
            "ListTagsOfResource");

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    /**
     * On the heap and on RocksDB with incremental checkpoints every 500 ms, the only backend
     * Managed Service for Apache Flink runs, and from one to the other: the savepoint is canonical.
     */
    @ParameterizedTest(name = "parallelism {0} -> {1} on {2} -> {3}")
    @CsvSource({
        "2, 2, hashmap, hashmap",
        "2, 4, hashmap, hashmap",
        "4, 2, rocksdb, hashmap",
        "2, 4, hashmap, rocksdb",
        "4, 2, rocksdb, rocksdb"
    })
    void aRedeployFromASavepointKeepsEveryItemOnceAndRepeatsNoTableAction(
            int before,
            int after,
            String backend,
            String backendAfter,
            @InjectMiniCluster MiniCluster cluster,
            @TempDir Path savepoints)
            throws Exception {
        DynamoDbFaults.reset();
        // The first run at 75 readings a second: tables take 500 ms to become ACTIVE (the fidelity layer) and
        // RocksDB with checkpoints starts slower, and the stop must still come mid-stream on a loaded machine.
        // The restored run has no stop to wait for: it reads the rest four times as fast, the same readings.
        String prefix = "redeploy" + before + after + backend.charAt(0) + backendAfter.charAt(0);
        PeriodTablesConfig config = config(prefix, 75);
        TableNaming naming = config.naming();
        Map<String, Map<List<String>, Map<String, AttributeValue>>> expected = expectedTables(config);
        assertThat(expected).as("the fleet spans four hourly periods").hasSize(4);

        // Run 1: stop with a savepoint once a third is written, at a moment the rotation is idle.
        JobClient first = submit(config, before, backend, null);
        Instant decided = awaitMidStreamWithIdleRotation(expected.keySet());
        String savepoint = first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                .get(BOUND.toSeconds(), TimeUnit.SECONDS);
        long writtenAtStop = written(expected.keySet());
        // A table operation that started after the rotation looked idle may have been cut off by the stop.
        Set<String> maybeInFlight = tablesCalled(decided, CONTROL_PLANE);
        Map<String, CapacityTier> tiersAtStop = new TreeMap<>();
        for (String table : TableContents.tablesOf(DYNAMODB.client(), naming)) {
            TableContents.tierOf(DYNAMODB.client(), config, table).ifPresent(tier -> tiersAtStop.put(table, tier));
        }
        tiersAtStop.keySet().removeAll(maybeInFlight);
        Instant restored = Instant.now();

        // Run 2: the same job from the savepoint with another parallelism or backend, until the fleet ends.
        JobEnd.await(submit(config(prefix, 300), after, backendAfter, savepoint), BOUND, cluster);

        LOG.info(
                "parallelism {} -> {}: savepoint after {} of {} items; tiers at the stop {}; maybe in flight {}; "
                        + "CreateTable {} / UpdateTable {} in all",
                before,
                after,
                writtenAtStop,
                READINGS,
                tiersAtStop,
                maybeInFlight,
                DynamoDbFaults.count("CreateTable"),
                DynamoDbFaults.count("UpdateTable"));
        assertThat(writtenAtStop).as("stopped mid-stream").isBetween(1L, READINGS - 1L);
        assertThat(TableContents.nonEmptyTables(DYNAMODB.client(), naming)).isEqualTo(expected);
        // The generator fleet's rollups, across the rescale: the aggregates of the stored items.
        Map<String, List<Map<String, AttributeValue>>> items = new TreeMap<>();
        expected.forEach((table, byKey) -> items.put(table, new ArrayList<>(byKey.values())));
        assertThat(RollupCheck.stored(DYNAMODB.client(), config))
                .as("rollups")
                .isNotEmpty()
                .isEqualTo(RollupCheck.expected(config, items, end -> true));

        assertThat(tablesCalled(restored, Set.of("CreateTable")))
                .as("tables created again after the restore")
                .noneMatch(tiersAtStop::containsKey);
        Map<String, CapacityTier> finalTiers = new TreeMap<>();
        for (String table : expected.keySet()) {
            finalTiers.put(
                    table,
                    TableContents.tierOf(DYNAMODB.client(), config, table).orElseThrow());
            CapacityTier atStop = tiersAtStop.getOrDefault(table, CapacityTier.CURRENT);
            // An action is a call DynamoDB accepted: each lowers the table one tier. The rotation
            // describes a table before every attempt, so it sends a change again only when the last
            // call for it was refused (the table busy) or got no answer (a timeout: it may have
            // taken effect); those are shown with their outcomes, not counted.
            List<SeenRequest> afterRestore = updates(table, restored);
            assertThat(afterRestore.stream().filter(SeenRequest::accepted))
                    .as(
                            "UpdateTable calls accepted for %s after the restore (tier %s at the stop, %s at the"
                                    + " end); every call: %s",
                            table, atStop, finalTiers.get(table), afterRestore)
                    .hasSizeLessThanOrEqualTo(finalTiers.get(table).ordinal() - atStop.ordinal());
            List<SeenRequest> both = updates(table, Instant.MIN);
            assertThat(both.stream().filter(SeenRequest::accepted))
                    .as("UpdateTable calls accepted for %s in both runs; every call: %s", table, both)
                    .hasSizeLessThanOrEqualTo(finalTiers.get(table).ordinal());
        }
        // The restored rotation went on: by the last watermark (03:29), 00:00 and 01:00 are older, 02:00 previous.
        assertThat(finalTiers.values())
                .containsExactly(CapacityTier.OLDER, CapacityTier.OLDER, CapacityTier.PREVIOUS, CapacityTier.CURRENT);
    }

    private static PeriodTablesConfig config(String prefix, int rate) {
        Map<String, String> keys = new HashMap<>();
        keys.put("source", "generator");
        keys.put("dynamodb.endpoint", DYNAMODB.emulator().endpoint().toString());
        keys.put("tables.prefix", prefix);
        keys.put("tables.period", "PT1H");
        keys.put("tables.shards", "3");
        keys.put("generator.start", "2025-03-01T00:00:00Z");
        keys.put("generator.devices", "7");
        keys.put("generator.rate", String.valueOf(rate));
        // 7 s of event time per reading at any rate: 1,800 readings span 3.5 hours.
        keys.put("generator.speedup", String.valueOf(7 * rate));
        keys.put("generator.count", String.valueOf(READINGS));
        keys.put("rollups.every", "PT15M,PT1H");
        return ConfigLoader.fromMap(keys, false);
    }

    /** The job as the jar builds it on {@code backend}; restored from {@code savepoint} when it is not null. */
    private static JobClient submit(PeriodTablesConfig config, int parallelism, String backend, String savepoint)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        if (backend.equals("rocksdb")) {
            Configuration state = new Configuration();
            state.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
            state.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
            env.configure(state);
            env.enableCheckpointing(500);
        }
        PeriodTablesTopology.build(env, config, Clock.systemUTC());
        StreamGraph graph = env.getStreamGraph();
        if (savepoint != null) {
            graph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint, false));
        }
        return env.executeAsync(graph);
    }

    /**
     * Waits until a third of the items is written and the rotation has been idle for {@link #QUIET};
     * returns the moment it was seen idle (no control-plane call since {@code QUIET} before it).
     */
    private static Instant awaitMidStreamWithIdleRotation(Set<String> tables) throws InterruptedException {
        Instant[] checked = new Instant[1];
        boolean ready = TableContents.eventually(BOUND, () -> {
            checked[0] = Instant.now();
            return written(tables) >= READINGS / 3
                    && DynamoDbFaults.requests().stream()
                            .noneMatch(r ->
                                    CONTROL_PLANE.contains(r.operation()) && r.at().isAfter(checked[0].minus(QUIET)));
        });
        assertThat(ready).as("a third written and the rotation idle").isTrue();
        return checked[0];
    }

    /** Items in {@code tables} so far. */
    private static long written(Set<String> tables) {
        long items = 0;
        for (String table : tables) {
            try {
                items += DYNAMODB.client().scanPaginator(b -> b.tableName(table).select(Select.COUNT)).stream()
                        .mapToLong(page -> page.count())
                        .sum();
            } catch (ResourceNotFoundException notYet) {
                // created when its first reading is written
            }
        }
        return items;
    }

    /** The tables named by calls of {@code operations} seen since {@code from}. */
    private static Set<String> tablesCalled(Instant from, Set<String> operations) {
        return DynamoDbFaults.requests().stream()
                .filter(r -> operations.contains(r.operation()) && !r.at().isBefore(from))
                .flatMap(r -> r.tables().stream())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** UpdateTable calls for {@code table} seen since {@code since}, with their outcomes. */
    private static List<SeenRequest> updates(String table, Instant since) {
        return DynamoDbFaults.requests().stream()
                .filter(r ->
                        r.operation().equals("UpdateTable") && r.tables().contains(table) && !r.at().isBefore(since))
                .toList();
    }

    /**
     * The fleet's items by table: each generated record through the parser rules, keyed by
     * {@code WriteSharding}, in the table of its period.
     */
    private static Map<String, Map<List<String>, Map<String, AttributeValue>>> expectedTables(PeriodTablesConfig config)
            throws Exception {
        FleetGenerator fleet = FleetGenerator.of(
                config, config.find(ConfigKeys.GENERATOR_START).orElseThrow());
        ReadingParser parser = new ReadingParser(config);
        ObjectMapper json = new ObjectMapper();
        ExpectedItems expected = new ExpectedItems(config);
        for (long n = 0; n < READINGS; n++) {
            ReadingParser.Result parsed = parser.parse(
                    fleet.map(n).getBytes(StandardCharsets.UTF_8), "generator", System.currentTimeMillis());
            assertThat(parsed.rejections).isEmpty();
            for (Reading reading : parsed.readings) {
                Map<String, AttributeValue> payload = new HashMap<>();
                json.readTree(reading.payloadJson())
                        .fields()
                        .forEachRemaining(field -> payload.put(
                                field.getKey(),
                                AttributeValue.fromN(
                                        field.getValue().decimalValue().toPlainString())));
                expected.period(
                        reading.deviceId(),
                        Instant.ofEpochMilli(reading.eventMillis()),
                        reading.eventId(),
                        reading.payloadJson(),
                        payload);
            }
        }
        return expected.periodTables();
    }
}
