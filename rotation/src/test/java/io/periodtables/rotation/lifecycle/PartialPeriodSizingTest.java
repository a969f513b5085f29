package io.periodtables.rotation.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.rotation.TestSetup;
import java.net.URI;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A period the run saw only in part (it began inside it) never sizes a table below what a whole
 * period, the {@code current} tier or the fleet's stated rate say (issue 58): the local demo
 * started in a minute's last seconds, and a daily fleet first seen at 20:00.
 */
class PartialPeriodSizingTest {
    private static final URI NOWHERE = URI.create("http://127.0.0.1:1");

    /**
     * {@code ./run-local --generator.start <minute>:55Z}: one-minute periods, event time 10× the wall
     * clock, 2,000 readings (1 WCU each) a wall-clock second, 200 a second of event time. The run
     * counted 600 write units in its first minute's last live second (three seconds of event
     * time), 2,000 in every live second of the next.
     */
    @Test
    void theDemoStartedInAMinutesLastSecondsOpensTheTableThreeMinutesOnAtTheFleetsRate() {
        PeriodTablesConfig demo = TestSetup.config(
                NOWHERE,
                "tables.capacity.autoscaling",
                "false",
                "source",
                "generator",
                "generator.rate",
                "2000",
                "generator.speedup",
                "10",
                "tables.period",
                "PT1M",
                "rotation.lead",
                "PT20S",
                "window.allowed-lateness",
                "PT10S");
        Instant first = Instant.parse("2030-03-09T04:13:00Z");
        AtomicLong watermark = new AtomicLong(Long.MIN_VALUE);
        WriteLoad load = new WriteLoad().countingFor(demo);
        for (int s = 57; s < 120; s++) {
            load.add(new TableLoad(table(demo, first.plusSeconds(s)), first.getEpochSecond() + s, 200));
            load.settle(first.plusSeconds(s).toEpochMilli() + 999);
        }
        OpenCapacity open = new OpenCapacity(demo, load, watermark::get);
        Period threeOn = demo.calendar().periodOf(first.plusSeconds(180));
        assertThat(load.peakOf(table(demo, first)))
                .as("the first minute's part")
                .hasValue(600);
        assertThat(open.sizedFrom(threeOn)).isEqualTo(demo.calendar().periodOf(first));

        watermark.set(first.plusSeconds(120 + 40).toEpochMilli()); // 04:16's prebuild, 20 s before it
        assertThat(open.of(threeOn))
                .as("04:14, seen whole and closed 10 s into 04:15: the fleet's ceil(2,000 / 0.7), not ceil(600 / 0.7)")
                .isEqualTo(Capacity.provisioned(2858, 300));

        watermark.set(first.plusSeconds(120 + 5).toEpochMilli()); // created early: 04:14 still in its grace
        assertThat(open.of(threeOn))
                .as("only the part is known: no less than the current tier, which holds generator.rate")
                .isEqualTo(Capacity.provisioned(2858, 300));
        assertThat(open.of(demo.calendar().periodOf(first.plusSeconds(240))))
                .as("04:17 from 04:14, seen whole")
                .isEqualTo(Capacity.provisioned(2858, 300));
    }

    /**
     * A daily fleet whose peak is 1,400 write units a second at 18:00 and 300 in the evening; the
     * job first saw it on 03-09 at 20:00 (started, or a backfill from there). The table of 03-12 is
     * sized from 03-09, which the run saw only from 20:00.
     */
    @Test
    void aDailyPeriodFirstSeenAt20DoesNotSizeTheNextDaysTableFromTheEveningsPeak() {
        PeriodTablesConfig config = TestSetup.config(
                NOWHERE,
                "tables.capacity.autoscaling",
                "false",
                "tables.capacity.current",
                "1000/300",
                "window.allowed-lateness",
                "PT5M",
                "rotation.lead",
                "PT15M");
        Instant day1 = Instant.parse("2030-03-09T00:00:00Z");
        Instant day2 = day1.plusSeconds(86_400);
        WriteLoad load = new WriteLoad().countingFor(config);
        evening(load, config, day1);
        load.add(new TableLoad(table(config, day2), day2.plusSeconds(18 * 3600).getEpochSecond(), 1_400));
        evening(load, config, day2);
        AtomicLong watermark = new AtomicLong(Long.MIN_VALUE);
        OpenCapacity open = new OpenCapacity(config, load, watermark::get);
        Period day4 = config.calendar().periodOf(day1.plusSeconds(3 * 86_400));
        assertThat(open.sizedFrom(day4)).isEqualTo(config.calendar().periodOf(day1));

        watermark.set(day4.startMillis() - 15 * 60_000); // prebuilt 15 min before 03-12
        assertThat(open.of(day4))
                .as(
                        "03-10, seen whole and closed: its 18:00 peak, ceil(1,400 / 0.7), not the evening's ceil(300 / 0.7)")
                .isEqualTo(Capacity.provisioned(2000, 300));
        assertThat(open.measured(day4)).hasValue(Capacity.provisioned(2000, 300));

        watermark.set(day4.startMillis() - 86_400_000 + 60_000); // asked for at 03-11 00:01, 03-10 in its grace
        assertThat(open.of(day4))
                .as("only the evening is known: the current tier, not ceil(300 / 0.7) = 429")
                .isEqualTo(Capacity.provisioned(1000, 300));
        assertThat(open.measured(day4))
                .as("what an existing table (a replay's) is raised to: no more than was measured")
                .hasValue(Capacity.provisioned(429, 300));

        assertThat(open.of(config.calendar().next(day4)))
                .as("03-13 from 03-10, seen whole")
                .isEqualTo(Capacity.provisioned(2000, 300));
    }

    /** 300 write units a second from 20:00 to midnight (a few seconds stand for them). */
    private static void evening(WriteLoad load, PeriodTablesConfig config, Instant day) {
        for (int h = 20; h < 24; h++) {
            load.add(
                    new TableLoad(table(config, day), day.plusSeconds(h * 3600L).getEpochSecond(), 300));
        }
    }

    private static String table(PeriodTablesConfig config, Instant at) {
        return config.naming().periodTableOf(at);
    }
}
