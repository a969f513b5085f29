package io.periodtables.query.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.PeriodLength;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CapacityPlannerTest {

    private final PeriodTablesConfig defaults = ConfigLoader.fromMap(Map.of(), true);

    private CapacityPlan plan(PlanInput input) {
        return CapacityPlanner.plan(input, Prices.usEast1(), defaults);
    }

    @Test
    void seedRule600ReadingsPerSecondOf180BytesFillTenGbInAbout26HoursSoTablesAreDaily() {
        CapacityPlan plan = plan(PlanInput.steady(600, 180, null));

        assertThat(plan.wcuPerWrite()).isEqualTo(1);
        assertThat(plan.partitionFillTime().toMinutes() / 60.0).isBetween(25.5, 27.0);
        assertThat(plan.period()).isEqualTo(PeriodLength.DAY);
        assertThat(plan.shards()).isEqualTo(1);
    }

    @Test
    void seedRule5000To6000ReadingsPerSecondOnOneKeyNeedSixShards() {
        assertThat(plan(new PlanInput(5_000, 6_000, 6_000, 180, null)).shards()).isEqualTo(6);
        assertThat(plan(PlanInput.steady(5_500, 180, null)).shards()).isEqualTo(6);
        assertThat(plan(PlanInput.steady(6_000, 180, null)).shards()).isEqualTo(6);
        assertThat(plan(PlanInput.steady(6_001, 180, null)).shards()).isEqualTo(7);
        assertThat(plan(new PlanInput(5_000, 6_000, 6_000, 180, null)).perKeyWcu())
                .isEqualTo(1_000);
    }

    @Test
    void aFleetOfQuietDevicesNeedsNoShardsHoweverHighItsTotalRate() {
        CapacityPlan plan = plan(new PlanInput(20_000, 25_000, 2, 180, null));

        assertThat(plan.shards()).isEqualTo(1);
        assertThat(plan.current()).isEqualTo(Capacity.provisioned(25_000, 300));
    }

    @Test
    void everyStartedKilobyteIsOneMoreWriteUnit() {
        assertThat(plan(PlanInput.steady(10, 1024, null)).wcuPerWrite()).isEqualTo(1);
        assertThat(plan(PlanInput.steady(10, 1025, null)).wcuPerWrite()).isEqualTo(2);
        assertThat(plan(PlanInput.steady(600, 2_500, null)).shards()).isEqualTo(2);
    }

    @Test
    void fasterFillingWorkloadsGetShorterPeriodsAndSlowOnesMonthlyTables() {
        assertThat(plan(PlanInput.steady(5, 180, null)).period()).isEqualTo(PeriodLength.MONTH);
        assertThat(plan(PlanInput.steady(50, 180, null)).period()).isEqualTo(PeriodLength.WEEK);
        assertThat(plan(PlanInput.steady(100, 180, null)).period()).isEqualTo(PeriodLength.DAY);
        assertThat(plan(PlanInput.steady(3_000, 180, null)).period()).isEqualTo(PeriodLength.parse("PT4H"));
        assertThat(plan(PlanInput.steady(10_000, 1_000, null)).period()).isEqualTo(PeriodLength.parse("PT15M"));
    }

    @Test
    void aPeriodTooShortForTheConfiguredLeadAndGraceGetsShorterOnes() {
        PeriodTablesConfig config = ConfigLoader.fromMap(Map.of("window.allowed-lateness", "PT20M"), true);
        CapacityPlan plan = CapacityPlanner.plan(PlanInput.steady(10_000, 1_000, null), Prices.usEast1(), config);

        assertThat(plan.lead()).isEqualTo(Duration.ofMinutes(5));
        assertThat(plan.allowedLateness()).isEqualTo(Duration.ofMinutes(5));
        assertThat(plan(PlanInput.steady(600, 180, null)).lead()).isEqualTo(Duration.ofMinutes(15));
    }

    @Test
    void tiersAreThePeakForTheCurrentTableAndTheConfiguredOnesForClosedTables() {
        CapacityPlan plan = plan(new PlanInput(600, 900, 900, 180, Duration.ofDays(30)));

        assertThat(plan.current()).isEqualTo(Capacity.provisioned(900, 300));
        assertThat(plan.previous()).isEqualTo(Capacity.provisioned(1, 100));
        assertThat(plan.older()).isEqualTo(Capacity.provisioned(1, 1));
        assertThat(plan.previousTables()).isEqualTo(1);
        assertThat(plan.olderTables()).isEqualTo(29);
        assertThat(plan.currentTables()).isCloseTo(1 + 0.25 / 24, within(1e-9));
    }

    @Test
    void monthlyCostAddsUpTierHoursStorageAndOnDemandWrites() {
        CapacityPlan plan = plan(PlanInput.steady(600, 180, Duration.ofDays(30)));

        double currentTables = 1 + 0.25 / 24;
        assertThat(plan.provisioned().writes()).isCloseTo(730 * 0.00065 * (600 * currentTables + 1 + 29), within(1e-6));
        assertThat(plan.provisioned().reads())
                .isCloseTo(730 * 0.00013 * (300 * currentTables + 100 + 29), within(1e-6));
        assertThat(plan.storedGb()).isCloseTo(600.0 * 280 * 30 * 86_400 / 1e9, within(1e-6));
        assertThat(plan.provisioned().storage()).isCloseTo(plan.storedGb() * 0.25, within(1e-9));
        assertThat(plan.onDemand().writes()).isCloseTo(600 * 730 * 3600 / 1e6 * 0.625, within(1e-6));
        assertThat(plan.onDemandIsCheaper()).isFalse();
    }

    @Test
    void theOnDemandPriceIsAParameter() {
        PlanInput input = PlanInput.steady(600, 180, null);
        double before = CapacityPlanner.plan(input, new Prices(0.00065, 0.00013, 1.25, 0.25), defaults)
                .onDemand()
                .writes();
        double now = CapacityPlanner.plan(input, Prices.usEast1(), defaults)
                .onDemand()
                .writes();

        assertThat(before).isCloseTo(2 * now, within(1e-6));
    }

    @Test
    void aLowSteadyRateIsCheaperOnDemand() {
        CapacityPlan plan = plan(PlanInput.steady(1, 180, Duration.ofDays(7)));

        assertThat(plan.onDemandIsCheaper()).isTrue();
    }

    @Test
    void absurdRatesAreCappedAtOneHundredShardsWithAWarning() {
        CapacityPlan plan = plan(PlanInput.steady(200_000, 180, Duration.ofDays(1)));

        assertThat(plan.shards()).isEqualTo(100);
        assertThat(plan.warnings()).anyMatch(w -> w.contains("100")).anyMatch(w -> w.contains("quota"));
    }
}
