package io.periodtables.query.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The seed fleet (600 readings/s of 180 B, daily tables, 30 days kept) at us-east-1 prices, the
 * numbers worked out by hand: P1D tables, 1 + 15 min / 24 h = 1.0104167 open tables, 1 previous
 * (1/100) and 29 older (1/1) ones, 435.456 GB stored ($108.864), on-demand writes
 * 600 * 730 h * 3600 s / 10^6 * $0.625 = $985.50.
 */
class BillingComparisonTest {
    private static final PeriodTablesConfig DEFAULTS = ConfigLoader.fromMap(Map.of(), true);
    private static final double OPEN = 1 + 15.0 / 60 / 24;
    /** 730 h * ($0.00013 * (300 RCU * OPEN + 100 + 29)): the reads of every provisioned case. */
    private static final double READS = 730 * 0.00013 * (300 * OPEN + 129);

    private static final double STORAGE = 600.0 * 280 * 720 * 3600 / 1e9 * 0.25;

    private static BillingComparison compare(double peakToMean) {
        PlanInput input = new PlanInput(600, 600 * peakToMean, 600, 180, Duration.ofDays(30));
        return BillingComparison.of(
                CapacityPlanner.plan(input, Prices.usEast1(), DEFAULTS), Prices.usEast1(), DEFAULTS);
    }

    @Test
    void aSteadyFleetIsCheapestOnTablesSizedFromItsPeak() {
        BillingComparison b = compare(1);

        assertThat(b.sized()).isEqualTo(Capacity.provisioned(858, 300)); // ceil(600 / 0.7)
        assertThat(b.sizedCost().writes()).isCloseTo(730 * 0.00065 * (858 * OPEN + 30), within(1e-6)); // $425.60
        assertThat(b.sizedCost().reads()).isCloseTo(READS, within(1e-6)); // $41.01
        assertThat(b.sizedCost().total()).isCloseTo(575.47, within(0.01));
        assertThat(b.fixed()).isEqualTo(Capacity.provisioned(1000, 300));
        assertThat(b.fixedCost().total()).isCloseTo(643.55, within(0.01));
        assertThat(b.onDemandCost().total()).isCloseTo(985.50 + STORAGE, within(1e-6)); // $1,094.36
        assertThat(b.recommendsOnDemand()).isFalse();
        // (985.50 - 730 * (0.00065 * 30 + 0.00013 * (300 * OPEN + 129))) / (730 * 0.00065 * OPEN * 600 / 0.7)
        assertThat(b.breakEvenPeakToMean()).isCloseTo(2.2637, within(1e-4));
    }

    @Test
    void aSpikyFleetAboveTheBreakEvenIsCheaperOnDemand() {
        BillingComparison b = compare(3);

        assertThat(b.sized()).isEqualTo(Capacity.provisioned(2572, 300)); // ceil(1,800 / 0.7)
        assertThat(b.sizedCost().total()).isCloseTo(730 * 0.00065 * (2572 * OPEN + 30) + READS + STORAGE, within(1e-6));
        assertThat(b.sizedCost().total()).isCloseTo(1397.23, within(0.01));
        assertThat(b.followingMean()).isEqualTo(Capacity.provisioned(858, 300)); // auto scaling at the mean
        assertThat(b.recommendsOnDemand()).isTrue();
        assertThat(b.breakEvenPeakToMean()).isCloseTo(2.2637, within(1e-4)); // the mean decides it, not the peak
    }

    @Test
    void theSizedCapacityStaysWithinTheConfiguredMaximum() {
        PeriodTablesConfig bounded = ConfigLoader.fromMap(Map.of("tables.capacity.current.max", "2000/300"), true);
        PlanInput input = new PlanInput(600, 1800, 600, 180, Duration.ofDays(30));
        BillingComparison b =
                BillingComparison.of(CapacityPlanner.plan(input, Prices.usEast1(), bounded), Prices.usEast1(), bounded);
        assertThat(b.sized()).isEqualTo(Capacity.provisioned(2000, 300));
    }
}
