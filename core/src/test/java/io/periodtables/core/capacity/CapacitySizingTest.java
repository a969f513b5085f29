package io.periodtables.core.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CapacitySizingTest {

    private static PeriodTablesConfig load(String... args) {
        return ConfigLoader.load(args, Map.of(), true);
    }

    @Test
    void aTableWithNothingObservedBeforeItOpensAtTheCurrentTier() {
        assertThat(new CapacitySizing(load()).open(OptionalLong.empty())).isEqualTo(Capacity.provisioned(1000, 300));
    }

    @Test
    void anObservedPeakSizesWritesAtTheTargetUtilisationAndKeepsTheCurrentReads() {
        CapacitySizing sizing = new CapacitySizing(load());
        // 70 WCU/s at 0.7 is exactly 100; 71 needs 101.43, rounded up
        assertThat(sizing.open(OptionalLong.of(70))).isEqualTo(Capacity.provisioned(100, 300));
        assertThat(sizing.open(OptionalLong.of(71))).isEqualTo(Capacity.provisioned(102, 300));
    }

    @Test
    void theSizeStaysWithinMinAndMax() {
        CapacitySizing sizing = new CapacitySizing(load(
                "--tables.capacity.current.min",
                "50/400",
                "--tables.capacity.current.max",
                "500/500",
                "--tables.capacity.target-utilization",
                "0.5"));
        assertThat(sizing.open(OptionalLong.of(3))).isEqualTo(Capacity.provisioned(50, 400));
        assertThat(sizing.open(OptionalLong.of(200))).isEqualTo(Capacity.provisioned(400, 400));
        assertThat(sizing.open(OptionalLong.of(10_000))).isEqualTo(Capacity.provisioned(500, 400));
    }

    @Test
    void aPeakSeenInPartOfItsPeriodNeverSizesATableBelowTheCurrentTierWhichHoldsTheFleetsStatedRate() {
        // the local demo started in a minute's last seconds saw 600 write units in that minute's last
        // live second; its fleet states 2,000 a second, so its current tier is ceil(2,000 / 0.7)
        CapacitySizing demo = new CapacitySizing(load("--source", "generator", "--generator.rate", "2000"));
        assertThat(demo.open(OptionalLong.of(600)))
                .as("a whole period's peak of 600: the fleet's measured rate")
                .isEqualTo(Capacity.provisioned(858, 300));
        assertThat(demo.openFromPart(600))
                .as("a part's peak of 600: a floor of the need, the current tier holds the stated rate")
                .isEqualTo(Capacity.provisioned(2858, 300));
        assertThat(demo.openFromPart(2800))
                .as("a part's peak above the tier")
                .isEqualTo(Capacity.provisioned(4000, 300));
        assertThat(new CapacitySizing(load("--tables.billing", "PAY_PER_REQUEST")).openFromPart(600))
                .isEqualTo(Capacity.ON_DEMAND);
    }

    @Test
    void onDemandTablesAreNotSized() {
        assertThat(new CapacitySizing(load("--tables.billing", "PAY_PER_REQUEST")).open(OptionalLong.of(5000)))
                .isEqualTo(Capacity.ON_DEMAND);
    }

    @Test
    void autoScalingIsOnForProvisionedTablesOnAwsAndOffWithAnEndpointOrOnDemand() {
        assertThat(load().autoscaling()).isTrue();
        assertThat(load("--dynamodb.endpoint", "http://127.0.0.1:8000").autoscaling())
                .isFalse();
        assertThat(load("--aws.endpoint", "http://127.0.0.1:8000").autoscaling())
                .isFalse();
        assertThat(load("--tables.billing", "PAY_PER_REQUEST").autoscaling()).isFalse();
        assertThat(load("--aws.endpoint", "http://127.0.0.1:8000", "--tables.capacity.autoscaling", "true")
                        .autoscaling())
                .isTrue();
        assertThat(load("--tables.capacity.autoscaling", "false").autoscaling()).isFalse();
    }

    @Test
    void badBoundsAndTargetsStopTheJobNamingTheKey() {
        assertThatThrownBy(() ->
                        load("--tables.capacity.current.min", "600/1", "--tables.capacity.current.max", "500/500"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("tables.capacity.current.max")
                .hasMessageContaining("600/1");
        assertThatThrownBy(() -> load("--tables.capacity.target-utilization", "0.95"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("tables.capacity.target-utilization")
                .hasMessageContaining("0.2 to 0.9");
        assertThatThrownBy(() -> load("--tables.capacity.current.max", "on-demand"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("tables.capacity.current.max");
        assertThatThrownBy(() -> load("--tables.billing", "PAY_PER_REQUEST", "--tables.capacity.autoscaling", "true"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("tables.capacity.autoscaling");
    }
}
