package io.periodtables.rotation.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.ThroughputQuotaRefused;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.FidelityLayer.AboveTableQuota;
import io.periodtables.rotation.CallLog;
import io.periodtables.rotation.ReconcilerHarness;
import io.periodtables.rotation.TestSetup;
import io.periodtables.rotation.lifecycle.TableLoad;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An account whose per-table throughput quota (3,000 here) is below {@code limits.max-table-units}
 * (40,000): the rotation prewarms the next rollups table to {@code ceil(6,000 / 0.7)} writes/s,
 * above the quota. DynamoDB's docs name no answer, so each one the fidelity layer can give is
 * tried: a refusal either way stops the rotation at once, naming the keys; an acceptance goes by.
 */
class ThroughputQuotaRefusalITCase {
    private static final Instant W = Instant.parse("2021-03-01T10:30:00Z");

    private final Dynalite local = TestSetup.dynamoDb();

    @BeforeEach
    void lowerTheQuota() {
        CallLog.reset();
        local.layer().maxTableUnits(3_000);
    }

    @AfterEach
    void restoreTheQuota() {
        local.layer().maxTableUnits(40_000);
        local.layer().aboveTableQuota(AboveTableQuota.LIMIT_EXCEEDED);
    }

    @ParameterizedTest
    @EnumSource(
            value = AboveTableQuota.class,
            names = {"LIMIT_EXCEEDED", "VALIDATION"})
    void aRefusedWarmThroughputStopsTheRotationNamingTheKeyAndTheQuotaWithoutRetrying(AboveTableQuota answer) {
        local.layer().aboveTableQuota(answer);
        PeriodTablesConfig config = config();
        String next = config.naming().rollupsTable(period(config, 1));

        assertThatThrownBy(() -> prebuildNext(config))
                .isInstanceOf(ThroughputQuotaRefused.class)
                .hasMessageStartingWith("DynamoDB refused the WarmThroughput of table " + next
                        + " (tables.warm-throughput.max = 40000/40000) as above its per-table throughput quota,"
                        + " which is below limits.max-table-units = 40000")
                .hasMessageContaining(answer.wire())
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        assertThat(CallLog.tablesOf("CreateTable"))
                .as("CreateTable calls of the refused table")
                .filteredOn(next::equals)
                .hasSize(1);
    }

    @Test
    void anAcceptedWarmThroughputGoesByAsDynamoDbReportsIt() throws Exception {
        local.layer().aboveTableQuota(AboveTableQuota.ACCEPTED);
        PeriodTablesConfig config = config();
        String next = config.naming().rollupsTable(period(config, 1));

        prebuildNext(config);

        assertThat(TestSetup.describe(local, next).warmThroughput().writeUnitsPerSecond())
                .as("ceil(6,000 / 0.7), above the 3,000 the table is served")
                .isEqualTo(8_572L);
    }

    private PeriodTablesConfig config() {
        return TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("quota"),
                "tables.period",
                "PT1H",
                "rollups.every",
                "PT1M");
    }

    /** The rotation of period 0 up to the prebuild of period 1, whose rollups table is sized from a 6,000 writes/s peak. */
    private static void prebuildNext(PeriodTablesConfig config) throws InterruptedException {
        try (ReconcilerHarness rotation = new ReconcilerHarness(config, Instant.now())) {
            rotation.state.load.add(new TableLoad(config.naming().rollupsTable(period(config, -2)), 1, 6_000));
            rotation.start();
            rotation.reconciler.onReading(W.toEpochMilli());
            rotation.watermark(W);
            rotation.watermark(period(config, 0).end().minusSeconds(60)); // within rotation.lead
            rotation.tick();
        }
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
}
