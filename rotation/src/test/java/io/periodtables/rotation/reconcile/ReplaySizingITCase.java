package io.periodtables.rotation.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.Dynalite;
import io.periodtables.rotation.ReconcilerHarness;
import io.periodtables.rotation.RotationTestBed;
import io.periodtables.rotation.TestSetup;
import io.periodtables.rotation.lifecycle.TableLoad;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Issue 47 through the reconciler on dynalite: a first run over minutes 10:00 to 10:03 of a fleet
 * writing 20 units a second of event time, then a replay of the same minutes (a second job, fresh
 * state). The first run sizes 10:03 and 10:04 from 10:00 and 10:01 at ceil(20 / 0.7) = 29 WCU;
 * the replay, whose watermark passes those tables minutes before it writes them, leaves them so
 * (it raises no table it does not write), and every table ends as the first run left it.
 */
class ReplaySizingITCase {
    private static final Capacity SIZED = Capacity.provisioned(29, 300);
    private static final Capacity CURRENT = Capacity.provisioned(1000, 300);

    @Test
    void aReplayGivesTheNextTablesTheFirstRunsSizeAndRaisesNoTableItDoesNotWrite() throws Exception {
        Dynalite local = TestSetup.dynamoDb();
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("replaysize"),
                "tables.period",
                "PT1M",
                "rotation.lead",
                "PT10S",
                "window.allowed-lateness",
                "PT5S",
                "tables.capacity.autoscaling",
                "false");
        Period p0 = config.calendar().periodOf(Instant.parse("2021-03-01T10:00:30Z"));
        List<String> tables = IntStream.rangeClosed(0, 4)
                .mapToObj(m -> config.naming().periodTableOf(p0.start().plusSeconds(60L * m)))
                .toList();

        try (ReconcilerHarness first = new ReconcilerHarness(config, Instant.now())) {
            first.start();
            run(first, config, p0, 0, 1, 2, 3);
        }
        List<Capacity> afterFirst = RotationTestBed.capacities(tables);
        assertThat(afterFirst.subList(3, 5))
                .as("10:03 from 10:00, 10:04 (prebuilt) from 10:01: the fleet's 20 a second")
                .containsExactly(SIZED, SIZED);

        try (ReconcilerHarness replay = new ReconcilerHarness(config, Instant.now())) {
            replay.start();
            run(replay, config, p0, 0);
            assertThat(RotationTestBed.capacities(tables).subList(3, 5))
                    .as("the replay's watermark is in 10:00: 10:03 and 10:04 are ahead of it, not written, not raised")
                    .containsExactly(SIZED, SIZED);
            run(replay, config, p0, 1, 2, 3);
        }
        assertThat(RotationTestBed.capacities(tables))
                .as("the replay leaves every table as the first run did")
                .isEqualTo(afterFirst);
    }

    /**
     * Each given minute after {@code p0}'s start: its load (20 write units in each second of event
     * time, as the write-load operator sends it), a reading and the watermark at 30 s, then the
     * watermark at 55 s (within rotation.lead of the next minute: it is prebuilt).
     */
    private static void run(ReconcilerHarness rotation, PeriodTablesConfig config, Period p0, int... minutes)
            throws Exception {
        for (int minute : minutes) {
            Instant start = p0.start().plusSeconds(60L * minute);
            String table = config.naming().periodTableOf(start);
            for (int s = 0; s < 60; s++) {
                rotation.state.load.add(new TableLoad(table, start.getEpochSecond() + s, 20));
            }
            for (int at : new int[] {30, 55}) {
                Instant t = start.plusSeconds(at);
                rotation.reconciler.onReading(t.toEpochMilli());
                rotation.watermark(t).tick();
                rotation.state.load.settle(t.toEpochMilli());
            }
        }
    }
}
