package io.periodtables.rotation.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
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
    void theSyntheticFleetIsCountedPerItsSpeedupInSecondsOfEventTimeWhatItWritesInAWallClockSecond() {
        Instant day1 = Instant.parse("2030-03-09T00:00:00Z"); // counted from its start: seen whole
        PeriodTablesConfig demo = config(10);
        Period day4 = demo.calendar().periodOf(Instant.parse("2030-03-12T12:00:00Z"));
        WriteLoad load = new WriteLoad().countingFor(demo);
        for (int s = 0; s < 30; s++) { // 2,000 readings a wall-clock second, 200 in each second of event time
            load.add(new TableLoad(demo.naming().periodTableOf(day1), day1.getEpochSecond() + s, 200));
            load.settle(day1.plusSeconds(s).toEpochMilli() + 999);
        }
        load.add(new TableLoad(
                demo.naming().rollupsTable(demo.calendar().periodOf(day1)), day1.getEpochSecond(), 5_000));
        OpenCapacity open = new OpenCapacity(demo, load);
        assertThat(open.of(day4))
                .as("ceil(2,000 / 0.7): the demo's fleet writes 2,000 a wall-clock second")
                .isEqualTo(Capacity.provisioned(2_858, 300));
        assertThat(open.rollupsWarmWrites(day4))
                .as("one burst of rollups in those ten seconds: ceil(5,000 / 0.7)")
                .isEqualTo(7_143);

        PeriodTablesConfig sparse = config(1_050);
        WriteLoad few = new WriteLoad().countingFor(sparse);
        for (int n = 0; n < 40; n++) { // 40 readings a wall-clock second, one every 26 s of event time
            few.add(new TableLoad(
                    sparse.naming().periodTableOf(day1), day1.getEpochSecond() / 1_050 * 1_050 + 26L * n, 1));
        }
        assertThat(new OpenCapacity(sparse, few).of(day4))
                .as("ceil(40 / 0.7), not 1 a second of event time times 1,050")
                .isEqualTo(Capacity.provisioned(58, 300));
    }

    private static PeriodTablesConfig config(double speedup) {
        return TestSetup.config(
                java.net.URI.create("http://127.0.0.1:1"),
                "tables.capacity.autoscaling",
                "false",
                "source",
                "generator",
                "generator.rate",
                "2000",
                "generator.speedup",
                String.valueOf(speedup));
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
