package io.periodtables.query.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.PeriodLength;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The write units per reading the plan prices, by table, for the fleet shapes users have. */
class TableWritesTest {
    private static final long ITEM_BYTES = 180;

    /**
     * The target for the defaults: a fleet reporting every 10 s pays at most 1.2 write
     * units per stored reading (a latest put a minute for six readings), and its latest item is at
     * most a minute (and a tick) behind.
     */
    @Test
    void withTheDefaultsAFleetReportingEveryTenSecondsPaysAtMostOnePointTwoWriteUnitsAReading() {
        TableWrites writes = writes(Duration.ofSeconds(10), Map.of());

        assertThat(writes.period()).isEqualTo(1);
        assertThat(writes.latest()).isCloseTo(1.0 / 6, within(1e-9));
        assertThat(writes.rollups()).isZero();
        assertThat(writes.total()).isLessThanOrEqualTo(1.2);
    }

    /** Coalescing helps a device only when it reports more often than it may be put. */
    @Test
    void aLatestPutPerDeviceAndIntervalAtMostAndPerReadingAtLeast() {
        assertThat(writes(Duration.ofSeconds(1), Map.of()).latest()).isCloseTo(1.0 / 60, within(1e-9));
        assertThat(writes(Duration.ofSeconds(60), Map.of()).latest()).isEqualTo(1);
        assertThat(writes(Duration.ofSeconds(600), Map.of()).latest()).isEqualTo(1);
        assertThat(writes(Duration.ofSeconds(1), Map.of("latest.interval", "PT1S"))
                        .latest())
                .isEqualTo(1);
        assertThat(writes(Duration.ofSeconds(10), Map.of("latest.enabled", "false"))
                        .latest())
                .isZero();
    }

    /** A checkpoint puts every changed device's newest: checkpoints more often than the interval set the rate. */
    @Test
    void checkpointsMoreOftenThanTheLatestIntervalPutAtEachCheckpoint() {
        FleetShape fleet = new FleetShape(1_000, Duration.ofSeconds(1), Duration.ofSeconds(10), 1);
        TableWrites writes = TableWrites.of(fleet, ITEM_BYTES, PeriodLength.DAY, config(Map.of()));

        assertThat(writes.latest()).isCloseTo(0.1, within(1e-9));
    }

    /** A rollup bucket is an item per device and bucket with readings, for each grain. */
    @Test
    void rollupsAreAnItemPerDeviceBucketAndGrain() {
        Map<String, String> rollups = Map.of("rollups.every", "PT1M,PT1H");

        assertThat(writes(Duration.ofSeconds(1), rollups).rollups()).isCloseTo(1.0 / 60 + 1.0 / 3600, within(1e-9));
        assertThat(writes(Duration.ofSeconds(10), rollups).rollups()).isCloseTo(10.0 / 60 + 10.0 / 3600, within(1e-9));
        assertThat(writes(Duration.ofSeconds(60), rollups).rollups()).isCloseTo(1 + 60.0 / 3600, within(1e-9));
    }

    /** A latest item is its reading's plus the table's name: past a KB boundary it costs one more unit. */
    @Test
    void aLatestItemCostsItsReadingsUnitsAndMoreAcrossAKilobyte() {
        FleetShape fleet = new FleetShape(100, Duration.ofSeconds(60), FleetShape.MSF_CHECKPOINT_INTERVAL, 1);

        assertThat(TableWrites.of(fleet, 1_000, PeriodLength.DAY, config(Map.of()))
                        .latest())
                .isEqualTo(2);
        assertThat(TableWrites.of(fleet, 900, PeriodLength.DAY, config(Map.of()))
                        .latest())
                .isEqualTo(1);
    }

    /** The writers table: a put per sink subtask and period, a rounding error per reading. */
    @Test
    void bookkeepingIsAPutPerSinkSubtaskAndPeriod() {
        FleetShape fleet = new FleetShape(86_400, Duration.ofSeconds(1), FleetShape.MSF_CHECKPOINT_INTERVAL, 4);
        TableWrites writes = TableWrites.of(fleet, ITEM_BYTES, PeriodLength.DAY, config(Map.of()));

        // 2 sinks (period, late and rejected) x 4 subtasks a day, over 86,400 x 86,400 readings a day
        assertThat(writes.bookkeeping()).isCloseTo(8.0 / (86_400.0 * 86_400), within(1e-15));
        assertThat(writes.monthly(1, Prices.usEast1())).isCloseTo(86_400.0 * 730 * 3600 / 1e6 * 0.625, within(1e-6));
    }

    private static TableWrites writes(Duration readingInterval, Map<String, String> keys) {
        FleetShape fleet = new FleetShape(10_000, readingInterval, FleetShape.MSF_CHECKPOINT_INTERVAL, 1);
        return TableWrites.of(fleet, ITEM_BYTES, PeriodLength.DAY, config(keys));
    }

    private static PeriodTablesConfig config(Map<String, String> keys) {
        return ConfigLoader.fromMap(new HashMap<>(keys), true);
    }
}
