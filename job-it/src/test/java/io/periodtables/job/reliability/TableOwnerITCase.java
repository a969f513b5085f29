package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.DynamoDbFaults;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The sink asks, the table owner decides, in the production wiring on a MiniCluster with
 * checkpointing off: a closed period's table is never created (its readings go to the late
 * table), and a table dialed down while readings for it were still unwritten gets its capacity
 * back, with DynamoDB's per-table write capacity enforced on top of dynalite.
 */
class TableOwnerITCase {
    private static final Instant T0 = Instant.parse("2025-06-01T08:00:00Z");

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static Dynalite dynamoDb;

    @BeforeAll
    static void startDynamoDb() {
        dynamoDb = DYNAMODB.emulator();
    }

    @AfterAll
    static void stopDynamoDb() {}

    @BeforeEach
    void clearFaults() {
        DynamoDbFaults.reset();
    }

    @Test
    void aReadingNinetyPeriodsOldWithLatePolicyPeriodTableGetsNoTableAndGoesToTheLateTable() throws Exception {
        PeriodTablesConfig config =
                ReliabilityRun.config(dynamoDb.endpoint(), "rel_owner_old", "late.policy", "period-table");
        String old = config.naming().periodTableOf(T0.minus(Duration.ofHours(90)));
        TestInput input = new TestInput();
        for (int minute = 0; minute < 150; minute += 5) {
            input.reading("dev-" + (minute % 3), T0.plus(Duration.ofMinutes(minute)), "\"v\":" + minute);
        }
        // A device the sink subtask has seen current readings of: until the sink sees the job's watermark,
        // its event time is the newest reading it converted minus watermark.out-of-orderness.
        input.reading("dev-0", T0.minus(Duration.ofHours(90)), "\"v\":-90"); // 90 periods behind the watermark
        input.reading("dev-0", T0.plus(Duration.ofMinutes(30)), "\"v\":-1"); // late, but its table exists

        ReliabilityRun run = ReliabilityRun.of(config, input).execute();

        TableSnapshot tables = run.assertExactlyOnce(dynamoDb);
        assertThat(tables.tables()).doesNotContain(old);
        assertThat(tables.lateTables()).hasSize(1);
        assertThat(tables.itemsOf(ExpectedTables.LATE).values())
                .singleElement()
                .satisfies(item -> assertThat(item.get("v").n()).isEqualTo("-90"));
        assertThat(run.requests())
                .noneMatch(
                        r -> r.operation().equals("CreateTable") && r.tables().contains(old));
    }

    @Test
    void aClosedTableFloodedWithLateReadingsIsRaisedAsAFallbackAndEveryReadingIsStoredOnce() throws Exception {
        // Each provisioned table takes writes at its own WCU, with 1 s of burst; 1 WCU is ~1 item a second.
        dynamoDb.layer().burst(Duration.ofSeconds(1)); // the fidelity layer's write capacity, a second of burst
        PeriodTablesConfig config = ReliabilityRun.config(
                dynamoDb.endpoint(),
                "rel_owner_throttled",
                "late.policy",
                "period-table",
                // 300 late readings at the closed table's 1 WCU would take 5 minutes: the fallback after 5 s
                "rotation.closed-raise-after",
                "PT5S");
        String closed = config.naming().periodTableOf(T0);
        TestInput input = new TestInput();
        for (int minute = 0; minute < 20; minute++) {
            input.reading("dev-" + minute % 4, T0.plus(Duration.ofMinutes(minute)), "\"v\":" + minute);
        }
        for (int minute = 0; minute < 10; minute++) { // the watermark moves two periods on: 08:00 is dialed down
            input.reading("dev-" + minute % 4, T0.plus(Duration.ofMinutes(120 + minute)), "\"v\":" + minute);
        }
        for (int i = 0; i < 300; i++) { // then a backlog of late readings for 08:00, written to its own table
            input.reading("late-" + i % 10, T0.plus(Duration.ofMinutes(30)).plusMillis(i), "\"late\":" + i);
        }

        TestSource.Hooks hooks = new TestSource.Hooks();
        hooks.rate = RateLimiterStrategy.perSecond(50); // the rotation dials 08:00 down before the backlog arrives
        ReliabilityRun run = ReliabilityRun.of(config, input).execute(hooks, env -> {});

        run.assertExactlyOnce(dynamoDb);
        assertThat(dynamoDb.layer().refused("throttledWrites"))
                .as("writes to the dialed-down table were throttled")
                .isPositive();
        assertThat(run.requests().stream()
                        .filter(r -> r.operation().equals("UpdateTable")
                                && r.tables().contains(closed))
                        .count())
                .as("lowered by the rotation, raised for the sink's backlog of late readings")
                .isGreaterThanOrEqualTo(2);
        try (DynamoDbClient client = dynamoDb.syncClient()) {
            assertThat(client.describeTable(b -> b.tableName(closed))
                            .table()
                            .provisionedThroughput()
                            .writeCapacityUnits())
                    .as("raised back after 5 s of throttling, not lowered again within rotation.lead")
                    .isEqualTo(1000L);
        }
    }
}
