package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.emulators.SeenRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.testutils.CommonTestUtils;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A savepoint that holds the sink's buffered entries for a closed, dialed-down table, restored
 * into the same production topology, with DynamoDB's per-table write capacity enforced on top of
 * dynalite. Late readings for 08:00 ({@code late.policy=period-table}, so its own table)
 * arrive after the watermark closed it, and the job is stopped with a savepoint right then: they
 * wait in the sink's buffer and go into its writer state. (Entries in flight, throttled or not,
 * are not: a savepoint waits for every request in flight, retries included.) The restored job
 * writes them into the table at its closed capacity of 1 WCU, with backoff (a closed table is not
 * raised for a few late readings). Every reading is stored once and no table is created again.
 */
class SavepointWithClosedTableEntriesITCase {
    private static final Logger LOG = LoggerFactory.getLogger(SavepointWithClosedTableEntriesITCase.class);
    private static final Instant T0 = Instant.parse("2025-06-01T08:00:00Z");
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final int ON_TIME = 40;
    private static final int LATE = 5;
    private static final AtomicBoolean LATE_SENT = new AtomicBoolean();

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    @Test
    void entriesForADialedDownTableInASavepointAreWrittenOnceAfterTheRestore(@TempDir Path savepoints)
            throws Exception {
        DynamoDbFaults.reset();
        DYNAMODB.emulator()
                .layer()
                .burst(Duration.ofSeconds(1)); // the fidelity layer's write capacity, a second of burst
        PeriodTablesConfig config = ReliabilityRun.config(
                DYNAMODB.emulator().endpoint(),
                "rel_restore_closed",
                "late.policy",
                "period-table",
                "window.allowed-lateness",
                "PT1M",
                "rotation.lead",
                "PT3S",
                "tables.capacity.current",
                "50/5",
                "tables.capacity.previous",
                "1/1",
                "tables.capacity.older",
                "1/1");
        String closed = config.naming().periodTableOf(T0);
        TestInput input = new TestInput();
        for (int i = 0; i < ON_TIME; i++) {
            input.reading("dev-" + i % 4, T0.plusSeconds(90L * i), "\"v\":" + i);
        }
        for (int i = 0; i < 20; i++) { // 09:00-09:19: the watermark passes 09:01, 08:00 closes
            input.reading("dev-" + i % 4, T0.plus(Duration.ofHours(1)).plusSeconds(60L * i), "\"v\":" + i);
        }
        int fast = input.size();
        for (int i = 0; i < 60; i++) { // 09:20 on, 2 a second: the job runs on until the stop
            input.reading("dev-" + i % 4, T0.plus(Duration.ofMinutes(80)).plusSeconds(60L * i), "\"v\":" + i);
            if (i == 10) { // 5 s in, when every task runs: late for 08:00, into its own table
                for (int k = 0; k < LATE; k++) {
                    input.reading("late-" + k, T0.plus(Duration.ofMinutes(30)).plusSeconds(k), "\"late\":" + k);
                }
            }
        }
        long firstLate = fast + 11;
        long lastLate = fast + 10 + LATE;
        ExpectedTables expected = ExpectedTables.of(config, input, Instant.now());
        TestSource.Hooks hooks = new TestSource.Hooks();
        hooks.rate = new PhasedRate(fast, 2);
        hooks.fault = (n, record) -> {
            if (n == firstLate) { // the late readings find 08:00's table dialed down
                CommonTestUtils.waitUtil(() -> lowered(closed), BOUND, "08:00's table lowered");
            }
            if (n == lastLate) {
                LATE_SENT.set(true);
            }
        };
        Instant start = Instant.now();

        // Stop right after the source sent the late readings: they reach the sink and wait in its
        // buffer (it sends a partial batch after 1 s), so the savepoint holds them.
        JobClient first = submit(config, input, hooks, null);
        CommonTestUtils.waitUtil(LATE_SENT::get, BOUND, "the source sent the late readings");
        String savepoint = first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                .get(BOUND.toSeconds(), TimeUnit.SECONDS);
        Instant stopped = Instant.now();
        List<SeenRequest> before = DynamoDbFaults.requests();
        Set<String> tablesAtStop;
        int closedAtStop;
        String capacityAtStop = capacity(closed);
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            TableSnapshot snapshot = TableSnapshot.read(client, config.naming());
            tablesAtStop = snapshot.tables();
            closedAtStop = snapshot.itemsOf(closed).size();
        }

        DynamoDbFaults.reset(); // a fresh request log; the layer still enforces capacity
        submit(config, input, hooks, savepoint).getJobExecutionResult().get(BOUND.toSeconds(), TimeUnit.SECONDS);
        Instant end = Instant.now();
        List<SeenRequest> after = DynamoDbFaults.requests();

        Set<String> created = new TreeSet<>();
        after.stream().filter(r -> r.operation().equals("CreateTable")).forEach(r -> created.addAll(r.tables()));
        LOG.info(
                "At the stop ({} ms after the start): {} of {} items in {}, UpdateTable calls for it {}; after the restore:"
                        + " {} throttled writes to it, {} UpdateTable calls for it, tables created {}; {} ms in all",
                Duration.between(start, stopped).toMillis(),
                closedAtStop,
                ON_TIME + LATE,
                closed,
                updates(before, closed),
                throttledWrites(after, closed),
                updates(after, closed),
                created,
                Duration.between(start, end).toMillis());

        assertThat(closedAtStop)
                .as("late readings for 08:00 unwritten at the stop, so in the savepoint")
                .isLessThan(ON_TIME + LATE);
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            ExactlyOnceCheck.assertExactlyOnce(expected, TableSnapshot.read(client, config.naming()), start, end);
        }
        assertThat(created).as("tables created again after the restore").doesNotContainAnyElementsOf(tablesAtStop);
        assertThat(updates(before, closed))
                .as("08:00 lowered once before the stop")
                .isEqualTo(1L);
        assertThat(capacityAtStop).isEqualTo("1/1");
        assertThat(updates(after, closed))
                .as("08:00 written at its closed tier after the restore, never raised")
                .isZero();
        assertThat(capacity(closed)).isEqualTo("1/1");
    }

    private static boolean lowered(String table) {
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            return client.describeTable(b -> b.tableName(table))
                            .table()
                            .provisionedThroughput()
                            .lastDecreaseDateTime()
                    != null;
        }
    }

    private static String capacity(String table) {
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            var throughput =
                    client.describeTable(b -> b.tableName(table)).table().provisionedThroughput();
            return throughput.writeCapacityUnits() + "/" + throughput.readCapacityUnits();
        }
    }

    /** The job on the test source; restored from {@code savepoint} when it is not null. */
    private static JobClient submit(
            PeriodTablesConfig config, TestInput input, TestSource.Hooks hooks, String savepoint) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        TestSource.build(env, config, input, hooks);
        StreamGraph graph = env.getStreamGraph();
        if (savepoint != null) {
            graph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint, false));
        }
        return env.executeAsync(graph);
    }

    private static long updates(List<SeenRequest> requests, String table) {
        return requests.stream()
                .filter(r -> r.operation().equals("UpdateTable") && r.tables().contains(table))
                .count();
    }

    private static long throttledWrites(List<SeenRequest> requests, String table) {
        return requests.stream()
                .filter(r ->
                        r.operation().equals("BatchWriteItem") && r.tables().contains(table) && r.throttled())
                .count();
    }
}
