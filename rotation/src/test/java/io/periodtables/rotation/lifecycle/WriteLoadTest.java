package io.periodtables.rotation.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.rotation.TestSetup;
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
    void wallClockPartialsOfOneSecondAddUpAndTheLargerPeakOfBothClocksCounts() {
        WriteLoad load = new WriteLoad();
        load.add(new TableLoad(DAY_2, 100, 30));
        load.add(new TableLoad(DAY_2, 5_000, 200, true));
        load.add(new TableLoad(DAY_2, 5_000, 150, true)); // another subtask, the same wall-clock second
        assertThat(load.peakOf(DAY_2)).hasValue(350);

        load.add(new TableLoad(DAY_2, 5_020, 10, true)); // twenty seconds later: 5,000 is no longer summed
        load.add(new TableLoad(DAY_2, 5_000, 100, true));
        assertThat(load.peakOf(DAY_2)).as("a second of its own, not 450").hasValue(350);
    }

    @Test
    void rollupsTablesPeaksDoNotPushOutThePeriodTablesPeaks() {
        WriteLoad load = new WriteLoad();
        for (int day = 1; day <= 9; day++) {
            load.add(new TableLoad(String.format("readings_2030-03-%02d", day), 1, day));
            load.add(new TableLoad(String.format("readings_rollups_2030-03-%02d", day), 1, 100 + day));
        }
        assertThat(load.peaks).hasSize(2 * WriteLoad.KEPT_TABLES);
        assertThat(load.peakOf("readings_2030-03-02")).hasValue(2);
        assertThat(load.peakOf("readings_rollups_2030-03-02")).hasValue(102);
        assertThat(load.peakOf("readings_2030-03-01")).isEmpty();
    }

    @Test
    void aTableIsSizedFromThePeriodThatHadClosedWhenThePeriodBeforeItBegan() {
        PeriodTablesConfig config = TestSetup.config(
                java.net.URI.create("http://127.0.0.1:1"),
                "tables.capacity.autoscaling",
                "false",
                "window.allowed-lateness",
                "PT5M");
        WriteLoad load = new WriteLoad();
        load.add(new TableLoad(DAY_1, 1, 700));
        load.add(new TableLoad(DAY_2, 1, 70));
        load.add(new TableLoad(DAY_3, 1, 7));
        OpenCapacity open = new OpenCapacity(config, load);
        assertThat(open.of(config.calendar().periodOf(Instant.parse("2030-03-12T12:00:00Z"))))
                .as("03-09 closed at 03-10 00:04:59.999; 03-10, still in its grace when 03-11 began, does not count")
                .isEqualTo(Capacity.provisioned(1000, 300));
        assertThat(open.of(config.calendar().periodOf(Instant.parse("2030-03-13T12:00:00Z"))))
                .as("from 03-10")
                .isEqualTo(Capacity.provisioned(100, 300));
        PeriodTablesConfig noGrace = TestSetup.config(
                java.net.URI.create("http://127.0.0.1:1"),
                "tables.capacity.autoscaling",
                "false",
                "window.allowed-lateness",
                "PT0S");
        assertThat(new OpenCapacity(noGrace, load)
                        .of(noGrace.calendar().periodOf(Instant.parse("2030-03-12T12:00:00Z"))))
                .as("without grace, 03-10 had closed when 03-11 began")
                .isEqualTo(Capacity.provisioned(100, 300));
    }

    @Test
    void anOpenTableIsRaisedToItsSizeButNeverLowered() {
        PeriodTablesConfig config =
                TestSetup.config(java.net.URI.create("http://127.0.0.1:1"), "tables.capacity.autoscaling", "false");
        WriteLoad load = new WriteLoad();
        load.add(new TableLoad(config.naming().periodTableOf(Instant.parse("2030-03-09T12:00:00Z")), 1, 70));
        OpenCapacity open = new OpenCapacity(config, load);
        Capacity sized = open.of(config.calendar().periodOf(Instant.parse("2030-03-12T12:00:00Z")));

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
