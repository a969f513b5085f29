package io.periodtables.rotation.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.TestTables;
import io.periodtables.rotation.CallLog;
import io.periodtables.rotation.ReconcilerHarness;
import io.periodtables.rotation.TestSetup;
import io.periodtables.rotation.controlplane.TableManager;
import io.periodtables.rotation.lifecycle.TableLoad;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A rollups table receives every device's bucket at the same watermark: a burst that a new
 * on-demand table (4,000 writes/s, strict fidelity layer) throttles. The rotation prewarms the
 * next period's rollups table from the rollups peak of the period its period table is sized from.
 */
class RollupsTablePrewarmITCase {
    private static final Instant W = Instant.parse("2021-03-01T10:30:00Z");
    private static final int UNITS_PER_ITEM = 10;

    private final Dynalite local = TestSetup.dynamoDb();

    @BeforeEach
    void reset() {
        CallLog.reset();
    }

    @Test
    void theNextRollupsTableTakesABucketBurstAsLargeAsItsSizingPeriodsWithoutThrottling() throws Exception {
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("rollwarm"),
                "tables.period",
                "PT1H",
                "rollups.every",
                "PT1M");
        Period open = period(config, 0);
        String next = config.naming().rollupsTable(period(config, 1));
        String afterNext = config.naming().rollupsTable(period(config, 2));
        try (TableManager other = TableManager.create(config, TestSetup.clients(config), TestSetup.fastSettings())) {
            other.ensureRollupsTable(period(config, 2)).join(); // created cold by someone else
        }
        try (ReconcilerHarness rotation = new ReconcilerHarness(config, Instant.now())) {
            // the rollups peaks of the periods the two tables are sized from (three back, with allowed lateness)
            rotation.state.load.add(new TableLoad(config.naming().rollupsTable(period(config, -2)), 1, 6_000));
            rotation.state.load.add(new TableLoad(config.naming().rollupsTable(period(config, -1)), 1, 3_500));
            rotation.start();
            rotation.reconciler.onReading(W.toEpochMilli());
            rotation.watermark(W);
            rotation.watermark(open.end().minusSeconds(60)); // within rotation.lead: next is prebuilt
            rotation.tick();
        }
        TestSetup.awaitActive(local, next);
        local.layer().stopClock(); // one second of DynamoDB's clock, however slow the machine
        long unprocessed;
        try {
            unprocessed = offerUnits(next, 6_000);
        } finally {
            local.layer().startClock();
        }
        assertThat(unprocessed * UNITS_PER_ITEM)
                .as("write units of a 6,000-unit burst refused (a cold on-demand table serves 4,000)")
                .isZero();
        assertThat(warmWrites(next)).as("ceil(6,000 / 0.7)").isEqualTo(8_572L);
        assertThat(warmWrites(afterNext))
                .as("an existing table is prewarmed by UpdateTable: ceil(3,500 / 0.7)")
                .isEqualTo(5_000L);
    }

    private static Period period(PeriodTablesConfig config, int periodsLater) {
        Period p = config.calendar().periodOf(W);
        for (int i = 0; i < periodsLater; i++) {
            p = config.calendar().next(p);
        }
        for (int i = 0; i > periodsLater; i--) {
            p = config.calendar().previous(p);
        }
        return p;
    }

    private long warmWrites(String table) {
        var warm = TestSetup.describe(local, table).warmThroughput();
        return warm == null || warm.writeUnitsPerSecond() == null ? 0 : warm.writeUnitsPerSecond();
    }

    /** Offers {@code units} as 10-unit bucket items, one device each, in calls of 25; how many items came back. */
    private long offerUnits(String table, int units) {
        try (DynamoDbClient client = local.syncClientWithoutRetries()) {
            return TestTables.refusedOfABurst(
                    client, table, units / UNITS_PER_ITEM, UNITS_PER_ITEM, "PT1M#2021-03-01T11:00:00.000Z");
        }
    }
}
