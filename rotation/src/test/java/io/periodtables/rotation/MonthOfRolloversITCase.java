package io.periodtables.rotation;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.Dynalite;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * A simulated month of daily rollovers with on-demand open tables and provisioned, Standard-IA
 * closed ones: every closed table ends at its tier and class after one switch from on-demand (with
 * the class, in one call) and one decrease, so no table comes near DynamoDB's limits on decreases,
 * billing-mode switches or class changes.
 */
class MonthOfRolloversITCase {
    private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
    private static final int DAYS = 30;

    @Test
    void everyClosedTableReachesItsTierAndClassWithTwoUpdatesAtMost() throws Exception {
        Dynalite local = TestSetup.dynamoDb();
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("month"),
                "tables.period",
                "P1D",
                "tables.capacity.current",
                "on-demand",
                "tables.capacity.previous",
                "5/5",
                "tables.capacity.older",
                "1/1",
                "tables.class.closed",
                "STANDARD_INFREQUENT_ACCESS");
        CallLog.reset();
        List<String> days = new ArrayList<>();
        try (ReconcilerHarness rotation = new ReconcilerHarness(config, START)) {
            rotation.start();
            rotation.reconciler.onReading(START.toEpochMilli());
            for (int day = 0; day < DAYS; day++) {
                Period period = config.calendar().periodOf(START.plus(Duration.ofDays(day)));
                days.add(config.naming().periodTable(period));
                rotation.wallClock.set(period.start().plusSeconds(3600).toEpochMilli());
                rotation.watermark(period.start().plusSeconds(3600)); // 01:00: yesterday has closed
                rotation.watermark(period.end().minusSeconds(600)); // 23:50: tomorrow is prebuilt
            }
        }
        for (int day = 0; day < DAYS; day++) {
            String table = days.get(day);
            TableDescription d = TestSetup.describe(local, table);
            long updates = CallLog.tablesOf("UpdateTable").stream()
                    .filter(table::equals)
                    .count();
            if (day < DAYS - 2) {
                assertThat(d.provisionedThroughput().writeCapacityUnits())
                        .as(table)
                        .isEqualTo(1L);
                assertThat(d.tableClassSummary().tableClassAsString())
                        .as(table)
                        .isEqualTo("STANDARD_INFREQUENT_ACCESS");
                assertThat(updates)
                        .as("%s: to provisioned 5/5 on Standard-IA in one call, then 1/1", table)
                        .isEqualTo(2);
                assertThat(d.provisionedThroughput().numberOfDecreasesToday())
                        .as(table)
                        .isEqualTo(1L);
            } else if (day == DAYS - 2) {
                assertThat(d.provisionedThroughput().writeCapacityUnits())
                        .as(table)
                        .isEqualTo(5L);
                assertThat(d.tableClassSummary().tableClassAsString())
                        .as(table)
                        .isEqualTo("STANDARD_INFREQUENT_ACCESS");
                assertThat(updates).as(table).isEqualTo(1);
            } else {
                assertThat(d.billingModeSummary().billingModeAsString())
                        .as(table)
                        .isEqualTo("PAY_PER_REQUEST");
                assertThat(d.tableClassSummary().tableClassAsString()).as(table).isEqualTo("STANDARD");
                assertThat(updates).as(table).isZero();
            }
        }
    }
}
