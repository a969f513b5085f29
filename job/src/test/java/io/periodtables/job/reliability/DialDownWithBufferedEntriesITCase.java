package io.periodtables.job.reliability;

import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.emulators.DynamoDbLocal;
import io.periodtables.emulators.SeenRequest;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * "No table is dialed down while readings for it are unwritten", in every checkpointing mode, in
 * the production wiring with DynamoDB's per-table write capacity enforced on top of DynamoDB
 * Local: an hour of readings arrives faster than its table's {@code current} tier can take them,
 * so the sink still holds a backlog for it when the watermark closes its period and the rotation
 * dials it down (at once without checkpointing; after a checkpoint otherwise, which with
 * unaligned checkpoints does not wait for the backlog). The sink, throttled on the lowered table,
 * gets its capacity back; every reading is stored once, late readings in the late table, and the
 * closed table ends at its lower tier once the backlog is written.
 */
class DialDownWithBufferedEntriesITCase {
    private static final Logger LOG = LoggerFactory.getLogger(DialDownWithBufferedEntriesITCase.class);
    private static final Instant T0 = Instant.parse("2025-06-01T08:00:00Z");
    private static final int BACKLOG = 300;

    /** How the job checkpoints. */
    enum Checkpointing {
        NONE(env -> { }),
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

    private static DynamoDbLocal dynamoDb;

    @BeforeAll
    static void startDynamoDb() {
        dynamoDb = DynamoDbLocal.start();
    }

    @AfterAll
    static void stopDynamoDb() {
        dynamoDb.close();
    }

    @BeforeEach
    void clearFaults() {
        DynamoDbFaults.reset();
    }

    @ParameterizedTest(name = "checkpointing {0}")
    @EnumSource(Checkpointing.class)
    void aTableClosedWithABacklogInTheSinkGetsItWrittenOnceAndEndsAtItsLowerTier(Checkpointing mode) throws Exception {
        // Each provisioned table takes 50 items a second (1 s of burst), closed ones 1.
        DynamoDbFaults.enforceThroughput(Duration.ofSeconds(1));
        PeriodTablesConfig config = ReliabilityRun.config(dynamoDb.endpoint(),
                "rel_backlog_" + mode.name().toLowerCase(Locale.ROOT),
                "tables.capacity.current", "50/5", "tables.capacity.previous", "1/1", "tables.capacity.older", "1/1",
                "window.allowed-lateness", "PT1M", "rotation.lead", "PT3S", "sink.max-buffered", "50");
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

        TableSnapshot tables = run.assertExactlyOnce(dynamoDb);
        assertThat(tables.itemsOf(closed)).hasSize(BACKLOG);
        assertThat(tables.itemsOf(ExpectedTables.LATE)).hasSize(5);
        List<SeenRequest> updates = run.requests().stream()
                .filter(r -> r.operation().equals("UpdateTable") && r.tables().contains(closed)).toList();
        Instant firstUpdate = updates.isEmpty() ? Instant.MAX : updates.get(0).at();
        List<SeenRequest> writesAfter = run.requests().stream().filter(r -> r.operation().equals("BatchWriteItem")
                && r.tables().contains(closed) && r.at().isAfter(firstUpdate)).toList();
        long throttledAfter = writesAfter.stream().filter(r -> r.fault().isPresent()).count();
        try (DynamoDbClient client = dynamoDb.syncClient()) {
            long finalWcu = client.describeTable(b -> b.tableName(closed)).table().provisionedThroughput().writeCapacityUnits();
            LOG.info("checkpointing {}: UpdateTable calls for {}: {}; BatchWriteItem calls with it after the first: {}"
                            + " ({} throttled); final WCU {}; run {} ms", mode, closed, updates.size(), writesAfter.size(),
                    throttledAfter, finalWcu, Duration.between(run.start, run.end).toMillis());
            assertThat(finalWcu).as("the closed table ends at its lower tier").isEqualTo(1L);
        }
    }
}
