package io.periodtables.rotation.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.Dynalite;
import io.periodtables.rotation.ReconcilerHarness;
import io.periodtables.rotation.TestSetup;
import io.periodtables.rotation.lifecycle.ManagedTable;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;

/**
 * A replay (a second run from an earlier stream position, new job, fresh state) passes again
 * over periods whose tables an earlier run lowered: it writes them at their closed tier, never
 * raises them for the period it replays, and they end at the tier the replay's watermark gives
 * them having spent no decrease beyond what that watermark itself calls for.
 */
class ReplayBehindLoweredTablesITCase {
    private static final Capacity CURRENT = Capacity.provisioned(1000, 300);
    private static final Capacity PREVIOUS = Capacity.provisioned(1, 100);
    private static final Capacity OLDER = Capacity.provisioned(1, 1);

    @Test
    void aReplayWritesLoweredTablesAtTheirTierAndSpendsNoDecreaseOnThem() throws Exception {
        Dynalite local = TestSetup.dynamoDb();
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("replay"),
                "tables.period",
                "PT1M",
                "rotation.lead",
                "PT10S",
                "window.allowed-lateness",
                "PT5S");
        Period p0 = config.calendar().periodOf(Instant.parse("2021-03-01T10:00:30Z"));
        Period p1 = config.calendar().next(p0);
        String t0 = config.naming().periodTable(p0);
        String t1 = config.naming().periodTable(p1);

        try (ReconcilerHarness first = new ReconcilerHarness(config, Instant.now())) {
            first.start();
            run(first, p0, 0, 1, 2);
        }
        assertThat(capacities(local, t0, t1)).containsExactly(OLDER, PREVIOUS);
        assertThat(decreasesToday(local, t0)).isEqualTo(2L);

        try (ReconcilerHarness replay = new ReconcilerHarness(config, Instant.now())) {
            replay.start();
            run(replay, p0, 0);
            assertThat(capacities(local, t0, t1))
                    .as("the replay's watermark is in 10:00 again: lowered tables stay at their tier")
                    .containsExactly(OLDER, PREVIOUS);
            run(replay, p0, 1, 2, 3);
        }
        assertThat(capacities(local, t0, t1)).containsExactly(OLDER, OLDER);
        assertThat(decreasesToday(local, t0))
                .as("the replay spent no decrease on 10:00")
                .isEqualTo(2L);
        assertThat(decreasesToday(local, t1))
                .as("10:01: previous in the first run, older by the replay's watermark")
                .isEqualTo(2L);
    }

    /** Readings and the watermark at 30 s into each of the given minutes after {@code p0}'s start. */
    private static void run(ReconcilerHarness rotation, Period p0, int... minutes) throws Exception {
        for (int minute : minutes) {
            Instant t = p0.start().plusSeconds(60L * minute + 30);
            rotation.reconciler.onReading(t.toEpochMilli());
            rotation.watermark(t).tick();
        }
    }

    private static List<Capacity> capacities(Dynalite local, String... tables) {
        return List.of(tables).stream()
                .map(t -> ManagedTable.capacityOf(TestSetup.describe(local, t)))
                .toList();
    }

    private static long decreasesToday(Dynalite local, String table) {
        ProvisionedThroughputDescription throughput =
                TestSetup.describe(local, table).provisionedThroughput();
        return throughput.numberOfDecreasesToday();
    }
}
