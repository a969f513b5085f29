package io.periodtables.rotation.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.rotation.CallLog;
import io.periodtables.rotation.ReconcilerHarness;
import io.periodtables.rotation.RotationTestBed;
import io.periodtables.rotation.TestSetup;
import io.periodtables.rotation.controlplane.TableManager;
import io.periodtables.rotation.lifecycle.TableLoad;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The reconciler against dynalite: every table of the prefix reaches its tier whoever
 * created it, passes are idempotent, decreases stay within DynamoDB's quota, nothing is created
 * for a wall-clock period, an idle stream or a closed period.
 */
class ReconcilerITCase {
    private static final Capacity CURRENT = Capacity.provisioned(1000, 300);
    private static final Capacity PREVIOUS = Capacity.provisioned(1, 100);
    private static final Capacity OLDER = Capacity.provisioned(1, 1);
    private static final Instant W = Instant.parse("2021-03-01T10:30:00Z");

    private final Dynalite local = TestSetup.dynamoDb();

    @BeforeEach
    void reset() {
        CallLog.reset();
        DynamoDbFaults.reset();
    }

    private static PeriodTablesConfig hourly(String name) {
        return TestSetup.config(
                TestSetup.dynamoDb().endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix(name),
                "tables.period",
                "PT1H",
                "tables.ttl",
                "P7D");
    }

    private static Period period(PeriodTablesConfig config, Instant t, int periodsLater) {
        Period p = config.calendar().periodOf(t);
        for (int i = 0; i < periodsLater; i++) {
            p = config.calendar().next(p);
        }
        for (int i = 0; i > periodsLater; i--) {
            p = config.calendar().previous(p);
        }
        return p;
    }

    private static List<String> tables(PeriodTablesConfig config, int... periodsFromW) {
        return java.util.Arrays.stream(periodsFromW)
                .mapToObj(i -> config.naming().periodTable(period(config, W, i)))
                .toList();
    }

    @Test
    void onDemandTablesArePrewarmedToTheirSizingPeriodsPeakAtPrebuildOrAfter() throws Exception {
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("warm"),
                "tables.period",
                "PT1H",
                "tables.billing",
                "PAY_PER_REQUEST",
                "tables.warm-throughput.max",
                "8000/8000");
        Period open = period(config, W, 0);
        Period next = period(config, W, 1);
        Period afterNext = period(config, W, 2);
        try (TableManager other = TableManager.create(config, TestSetup.clients(config), TestSetup.fastSettings())) {
            other.ensure(afterNext).join(); // created by someone else, not warmed
        }
        try (ReconcilerHarness rotation = new ReconcilerHarness(config, Instant.now())) {
            // peaks of the periods the two tables are sized from (three back, with allowed lateness)
            rotation.state.load.add(new TableLoad(config.naming().periodTable(period(config, W, -2)), 1, 7_000));
            rotation.state.load.add(new TableLoad(config.naming().periodTable(period(config, W, -1)), 1, 3_500));
            rotation.state.load.add(new TableLoad(config.naming().periodTable(period(config, W, -3)), 1, 2_000));
            rotation.start();
            rotation.reconciler.onReading(W.toEpochMilli());
            rotation.watermark(W);
            rotation.watermark(open.end().minusSeconds(60)); // within rotation.lead: next is prebuilt
            rotation.tick();

            assertThat(warmWrites(config.naming().periodTable(next)))
                    .as("ceil(7,000 / 0.7) = 10,000, bounded by tables.warm-throughput.max")
                    .isEqualTo(8_000L);
            assertThat(warmWrites(config.naming().periodTable(afterNext)))
                    .as("an existing table is prewarmed by UpdateTable: ceil(3,500 / 0.7)")
                    .isEqualTo(5_000L);
            assertThat(CallLog.tablesOf("UpdateTable"))
                    .containsExactly(config.naming().periodTable(afterNext));
            assertThat(warmWrites(config.naming().periodTable(open)))
                    .as("ceil(2,000 / 0.7) = 2,858 is within the 4,000 writes/s of a new table: none")
                    .isZero();
        }
    }

    private long warmWrites(String table) {
        var warm = TestSetup.describe(local, table).warmThroughput();
        return warm == null || warm.writeUnitsPerSecond() == null ? 0 : warm.writeUnitsPerSecond();
    }

    @Test
    void aClosedTableMovesToStandardInfrequentAccessWithItsFirstLoweringInOneCall() throws Exception {
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("ia"),
                "tables.period",
                "PT1H",
                "tables.class.closed",
                "STANDARD_INFREQUENT_ACCESS");
        String closing = config.naming().periodTable(period(config, W, 0));
        String next = config.naming().periodTable(period(config, W, 1));
        try (ReconcilerHarness rotation = new ReconcilerHarness(config, Instant.now())) {
            rotation.start();
            rotation.reconciler.onReading(W.toEpochMilli());
            rotation.watermark(W);
            rotation.watermark(period(config, W, 1).start().plusSeconds(600)); // 10:00 closed, 11:00 open
            assertThat(TestSetup.describe(local, closing).tableClassSummary().tableClassAsString())
                    .isEqualTo("STANDARD_INFREQUENT_ACCESS");
            assertThat(TestSetup.describe(local, closing)
                            .provisionedThroughput()
                            .writeCapacityUnits())
                    .isEqualTo(PREVIOUS.writeUnits());
            assertThat(CallLog.tablesOf("UpdateTable"))
                    .as("lowered and moved in one call")
                    .containsExactly(closing);
            assertThat(TestSetup.describe(local, next).tableClassSummary().tableClassAsString())
                    .as("an open table stays STANDARD")
                    .isEqualTo("STANDARD");

            rotation.watermark(period(config, W, 2).start().plusSeconds(600)); // 10:00 older
            assertThat(TestSetup.describe(local, closing)
                            .provisionedThroughput()
                            .writeCapacityUnits())
                    .isEqualTo(OLDER.writeUnits());
            assertThat(CallLog.tablesOf("UpdateTable").stream().filter(closing::equals))
                    .as("the class changed once; the second lowering is capacity only")
                    .hasSize(2);
            assertThat(TestSetup.describe(local, closing).tableClassSummary().tableClassAsString())
                    .isEqualTo("STANDARD_INFREQUENT_ACCESS");
        }
    }

    @Test
    void tablesSomeoneElseCreatedReachTheirTierAndAPassIsIdempotent() throws Exception {
        PeriodTablesConfig config = hourly("adopt");
        // As the sink's fallback or an earlier run would leave them: all at the current tier.
        List<String> names = tables(config, -60, -5, -1, 0, 1, 3);
        try (TableManager other = TableManager.create(config, TestSetup.clients(config), TestSetup.fastSettings())) {
            for (int i : new int[] {-60, -5, -1, 0, 1, 3}) {
                other.ensure(period(config, W, i)).join();
            }
        }
        try (ReconcilerHarness rotation = new ReconcilerHarness(config, Instant.now())) {
            rotation.start().watermark(W);

            // The table three periods ahead keeps the current tier: tables ahead of the watermark exist
            // for readings ahead of it (a shard ahead of the others), which it must take.
            assertThat(RotationTestBed.capacities(names))
                    .containsExactly(OLDER, OLDER, PREVIOUS, CURRENT, CURRENT, CURRENT);
            assertThat(TestSetup.tableNames(local, config.naming().prefix())).hasSize(6);

            CallLog.reset();
            rotation.tick().tick();
            assertThat(CallLog.tablesOf("CreateTable")).isEmpty();
            assertThat(CallLog.tablesOf("UpdateTable")).isEmpty();
            assertThat(CallLog.tablesOf("UpdateTimeToLive")).isEmpty();
            assertThat(CallLog.tablesOf("DeleteTable")).isEmpty();
            assertThat(rotation.metrics.managedTables()).isEqualTo(6);
            assertThat(rotation.metrics.provisionedWriteCapacity()).isEqualTo(1 + 1 + 1 + 1000 + 1000 + 1000);
        }
    }

    @Test
    void aBackfillCreatesNoTableForTheWallClocksPeriodNorForThePeriodBeforeTheFirstReading() throws Exception {
        PeriodTablesConfig config =
                TestSetup.config(local.endpoint(), "tables.prefix", TestSetup.uniquePrefix("backfill"));
        Instant firstReading = Instant.parse("2021-03-01T00:00:02Z");
        try (ReconcilerHarness rotation = new ReconcilerHarness(config, Instant.now())) {
            rotation.start();
            rotation.reconciler.onReading(firstReading.toEpochMilli());
            // The first watermark is the first reading minus the out-of-orderness: still in the day before.
            rotation.watermark(firstReading.minusSeconds(5)).tick();

            assertThat(TestSetup.tableNames(local, config.naming().prefix()))
                    .containsExactly(config.naming().periodTableOf(firstReading));
            assertThat(rotation.events)
                    .filteredOn(e -> e.kind() == RotationEvent.Kind.TABLE_READY)
                    .singleElement()
                    .satisfies(e -> assertThat(e.leadMillis()).isEqualTo(3_000));
        }
    }

    @Test
    void anIdleStreamCreatesNothingNewOverSeveralPeriods() throws Exception {
        PeriodTablesConfig config = hourly("idle");
        try (ReconcilerHarness rotation = new ReconcilerHarness(config, W)) {
            rotation.start();
            rotation.reconciler.onReading(W.toEpochMilli());
            rotation.watermark(W);
            assertThat(CallLog.tablesOf("CreateTable"))
                    .containsExactly(config.naming().periodTableOf(W));

            for (int hour = 1; hour <= 5; hour++) {
                rotation.wallClock.set(W.plus(Duration.ofHours(hour)).toEpochMilli());
                rotation.tick();
            }

            assertThat(CallLog.tablesOf("CreateTable"))
                    .containsExactly(config.naming().periodTableOf(W));
            assertThat(TestSetup.tableNames(local, config.naming().prefix()))
                    .containsExactly(config.naming().periodTableOf(W));
        }
    }

    @Test
    void aReadingOfAClosedPeriodGetsNoTable() throws Exception {
        PeriodTablesConfig config = hourly("closed");
        try (ReconcilerHarness rotation = new ReconcilerHarness(config, W)) {
            rotation.start().watermark(W);
            rotation.reconciler.onReading(W.minus(Duration.ofHours(90)).toEpochMilli());
            rotation.reconciler.onReading(W.plus(Duration.ofHours(3)).toEpochMilli());
            rotation.drain();

            assertThat(CallLog.tablesOf("CreateTable")).isEmpty();
        }
    }

    @Test
    void decreasesStayWithinDynamoDbsQuota() throws Exception {
        PeriodTablesConfig config = hourly("quota");
        String closed = config.naming().periodTable(period(config, W, -5));
        Instant now = Instant.now();
        try (ReconcilerHarness rotation = new ReconcilerHarness(config, now, DynamoDbFaults.class);
                DynamoDbAsyncClient byHand =
                        TestSetup.clients(config, DynamoDbFaults.class).newAsyncClient(2)) {
            rotation.manager.ensure(period(config, W, -5)).join();
            for (long units = 999; units >= 996; units--) { // four decreases by hand: today's free ones are used
                long write = units;
                byHand.updateTable(b -> b.tableName(closed)
                                .provisionedThroughput(
                                        p -> p.writeCapacityUnits(write).readCapacityUnits(300L)))
                        .join();
                TestSetup.awaitActive(local, closed); // DynamoDB refuses an UpdateTable while UPDATING
            }
            CallLog.reset();

            rotation.start().watermark(W).tick();
            assertThat(CallLog.tablesOf("UpdateTable"))
                    .as("the quota allows no decrease now: none is asked for")
                    .isEmpty();

            // An hour later by the rotation's clock, it tries; DynamoDB (whose clock did not move) refuses once.
            rotation.wallClock.set(now.plus(Duration.ofMinutes(61)).toEpochMilli());
            rotation.tick().tick().tick();
            assertThat(CallLog.tablesOf("UpdateTable"))
                    .as("a refusal is not repeated before the quota allows")
                    .hasSize(1);
            assertThat(RotationTestBed.capacities(List.of(closed))).containsExactly(Capacity.provisioned(996, 300));
        }
    }

    @Test
    void aTableRaisedForAThrottledSinkIsLoweredAgainOnlyAfterRotationLead() throws Exception {
        PeriodTablesConfig config = hourly("raised");
        String closed = config.naming().periodTable(period(config, W, -5));
        Instant now = Instant.now();
        try (ReconcilerHarness rotation = new ReconcilerHarness(config, now, DynamoDbFaults.class)) {
            rotation.manager.ensure(period(config, W, -5)).join();
            rotation.start().watermark(W);
            assertThat(RotationTestBed.capacities(List.of(closed))).containsExactly(OLDER);

            rotation.manager.raiseToOpenTier(closed).join(); // what the sink's handler does when throttled
            TestSetup.awaitActive(local, closed); // 16 minutes pass below by the rotation's clock only
            rotation.tick();
            assertThat(RotationTestBed.capacities(List.of(closed)))
                    .as("raised less than rotation.lead ago")
                    .containsExactly(CURRENT);

            rotation.wallClock.set(now.plus(Duration.ofMinutes(16)).toEpochMilli());
            rotation.tick();
            assertThat(RotationTestBed.capacities(List.of(closed))).containsExactly(OLDER);
            assertThat(rotation.manager.tierOf(
                            rotation.manager.describe(closed).join().orElseThrow()))
                    .contains(CapacityTier.OLDER);
        }
    }
}
