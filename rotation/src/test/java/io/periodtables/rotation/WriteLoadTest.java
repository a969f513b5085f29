package io.periodtables.rotation;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.conf.Capacity;
import io.periodtables.conf.PeriodTablesConfig;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class WriteLoadTest {
    private static final String DAY_1 = "readings_2030-03-09";
    private static final String DAY_2 = "readings_2030-03-10";
    private static final String DAY_3 = "readings_2030-03-11";

    @Test
    void partialsOfOneSecondAddUpUntilTheWatermarkPassesIt() {
        WriteLoad load = new WriteLoad();
        load.add(new TableLoad(DAY_2, 100, 30));
        load.add(new TableLoad(DAY_2, 100, 25)); // another subtask, same second
        load.add(new TableLoad(DAY_2, 101, 40));
        assertThat(load.peakOf(DAY_2)).hasValue(55);

        load.settle(100_999); // second 100 ends at 100.999 s: complete
        load.add(new TableLoad(DAY_2, 100, 50)); // arrives late: a second of its own, not 105
        assertThat(load.peakOf(DAY_2)).hasValue(55);
        load.add(new TableLoad(DAY_2, 101, 20)); // second 101 is still open
        assertThat(load.peakOf(DAY_2)).hasValue(60);
    }

    @Test
    void theNextTableFollowsTheNewestObservedTableBeforeIt() {
        WriteLoad load = new WriteLoad();
        load.add(new TableLoad(DAY_1, 1, 700));
        load.add(new TableLoad(DAY_2, 1, 70));
        assertThat(load.peakBefore(DAY_3)).hasValue(70);
        assertThat(load.peakBefore(DAY_2)).hasValue(700);
        assertThat(load.peakBefore(DAY_1)).isEmpty();
    }

    @Test
    void anOpenTableIsRaisedToItsSizeButNeverLowered() {
        PeriodTablesConfig config =
                TestSetup.config(java.net.URI.create("http://127.0.0.1:1"), "tables.capacity.autoscaling", "false");
        WriteLoad load = new WriteLoad();
        load.add(new TableLoad(config.naming().periodTableOf(Instant.parse("2030-03-09T12:00:00Z")), 1, 70));
        OpenCapacity open = new OpenCapacity(config, load);
        Capacity sized = open.of(config.calendar().periodOf(Instant.parse("2030-03-10T12:00:00Z")));

        assertThat(sized).isEqualTo(Capacity.provisioned(100, 300));
        assertThat(open.satisfies(Capacity.provisioned(100, 300), sized)).isTrue();
        assertThat(open.satisfies(Capacity.provisioned(1000, 300), sized))
                .as("raised for a throttled sink")
                .isTrue();
        assertThat(open.satisfies(Capacity.provisioned(50, 300), sized)).isFalse();
        assertThat(open.of(config.calendar().periodOf(Instant.parse("2030-03-09T12:00:00Z"))))
                .as("nothing observed before it: the current tier")
                .isEqualTo(Capacity.provisioned(1000, 300));
    }

    @Test
    void withAutoScalingAnOpenTableWithinTheBoundsIsLeftToIt() {
        PeriodTablesConfig config =
                TestSetup.config(java.net.URI.create("http://127.0.0.1:1"), "tables.capacity.autoscaling", "true");
        OpenCapacity open = new OpenCapacity(config, new WriteLoad());
        assertThat(open.satisfies(Capacity.provisioned(20, 30), Capacity.provisioned(1000, 300)))
                .isTrue();
    }
}
