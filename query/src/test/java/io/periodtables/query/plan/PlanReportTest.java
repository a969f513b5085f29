package io.periodtables.query.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.core.period.PeriodLength;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanReportTest {

    private final PeriodTablesConfig defaults = ConfigLoader.fromMap(Map.of(), true);

    @Test
    void emittedConfigurationLoadsAndCarriesThePlan() {
        CapacityPlan plan = CapacityPlanner.plan(
                new PlanInput(5_000, 6_000, 6_000, 180, Duration.ofDays(30)), Prices.usEast1(), defaults);

        PeriodTablesConfig loaded = ConfigLoader.fromMap(PlanReport.config(plan, defaults), false);

        assertThat(loaded.get(TableKeys.TABLES_PERIOD)).isEqualTo(plan.period());
        assertThat(loaded.get(TableKeys.TABLES_SHARDS)).isEqualTo(6);
        assertThat(loaded.get(TableKeys.CAPACITY_CURRENT)).isEqualTo(Capacity.provisioned(6_000, 300));
        assertThat(loaded.get(TableKeys.TABLES_RETENTION)).isEqualTo(Duration.ofDays(30));
        assertThat(PlanReport.config(plan, defaults)).doesNotContainKeys("rotation.lead", "window.allowed-lateness");
    }

    @Test
    void fifteenMinuteTablesComeWithALeadAndGraceThatFitThem() {
        CapacityPlan plan = CapacityPlanner.plan(PlanInput.steady(10_000, 1_000, null), Prices.usEast1(), defaults);

        Map<String, String> keys = PlanReport.config(plan, defaults);
        PeriodTablesConfig loaded = ConfigLoader.fromMap(keys, false);

        assertThat(loaded.get(TableKeys.TABLES_PERIOD)).isEqualTo(PeriodLength.parse("PT15M"));
        assertThat(keys).containsEntry("rotation.lead", "PT5M").doesNotContainKey("window.allowed-lateness");
    }

    @Test
    void billingAndTableClassAreComparedFourWaysAndTheOneRecommendationIsTheCheapestThatHoldsThePeak() {
        PlanInput input = new PlanInput(10_000, 30_000, 30_000, 180, Duration.ofDays(30));
        CapacityPlan plan = CapacityPlanner.plan(input, Prices.usEast1(), defaults);
        BillingComparison billing = BillingComparison.of(plan, Prices.usEast1(), defaults);

        String text = PlanReport.renderBilling(billing, plan, 0.7);

        double standard = billing.followingMeanCost().total();
        double closedShare = (plan.previousTables() + plan.olderTables())
                / (plan.currentTables() + plan.previousTables() + plan.olderTables());
        double closedCapacity = 730
                * (plan.previousTables() * (1 * 0.00065 + 100 * 0.00013) + plan.olderTables() * (0.00065 + 0.00013));
        double ia = standard - 0.6 * billing.onDemandCost().storage() * closedShare + 0.25 * closedCapacity;
        assertThat(text)
                .contains(String.format(
                        java.util.Locale.ROOT, "auto scaling (lower bound), Standard       $%,.2f", standard))
                .contains(String.format(java.util.Locale.ROOT, "auto scaling (lower bound), Standard-IA    $%,.2f", ia))
                .contains("on-demand + prewarm, Standard ")
                .contains("on-demand + prewarm, Standard-IA ")
                .contains("recommended     auto scaling (lower bound), Standard-IA (tables.billing=PROVISIONED,"
                        + " tables.class.closed=STANDARD_INFREQUENT_ACCESS): the cheapest that holds the peak")
                .contains("1000/300 (tables.capacity.current), too small: cannot hold the peak of 30,000 WCU");
        assertThat(text.lines().filter(l -> l.startsWith("recommended") || l.startsWith("cheapest")))
                .hasSize(1);
        assertThat(ia).isLessThan(standard);
    }

    @Test
    void renderedPlanStatesEachFigureWithItsArithmetic() {
        CapacityPlan plan =
                CapacityPlanner.plan(PlanInput.steady(600, 180, Duration.ofDays(30)), Prices.usEast1(), defaults);

        String text = PlanReport.render(plan, Prices.usEast1());

        assertThat(text)
                .contains("180 B -> 1 WCU per write")
                .contains("108,000 B/s fill a 10 GB partition in 25.7 h")
                .containsPattern("period +P1D")
                .containsPattern("shards +1 ")
                .contains("current 600/300, previous 1/100, older 1/1")
                .contains("29 older (retention P30D)")
                .contains("provisioned")
                .contains("on-demand")
                .contains("$0.00065/WCU-h")
                .contains("$0.625 per million writes");
    }
}
