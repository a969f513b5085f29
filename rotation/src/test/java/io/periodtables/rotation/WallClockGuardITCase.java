package io.periodtables.rotation;

import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.emulators.DynamoDbLocal;

import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The wall-clock guard prebuilds for a stalled source, but not during a backfill. */
class WallClockGuardITCase {

    private final LinkedBlockingQueue<Runnable> mailbox = new LinkedBlockingQueue<>();
    private final AtomicLong wall = new AtomicLong(Instant.parse("2026-11-22T10:50:00Z").toEpochMilli());

    @Test
    void backfillFarBehindTheWallClockDoesNotProvisionWallClockTables() throws Exception {
        DynamoDbLocal local = TestSetup.dynamoDb();
        PeriodTablesConfig config = config(local, "backfill");
        try (TableManager manager = TableManager.create(config, TestSetup.clients(config), TestSetup.fastSettings())) {
            RotationController controller = controller(manager, config);
            // The watermark moves, but two days behind the wall clock.
            for (int minute = 0; minute < 5; minute++) {
                controller.onWatermark(Instant.parse("2026-11-20T10:00:00Z").plusSeconds(60L * minute).toEpochMilli());
                wall.addAndGet(Duration.ofMinutes(1).toMillis());
                controller.onWallClock();
                drain(controller);
            }
            assertThat(TestSetup.tableNames(local, config.naming().prefix()))
                    .allMatch(name -> name.contains("2026-11-20T"));
        }
    }

    @Test
    void stalledSourceFindsTheWallClockTablesReady() throws Exception {
        DynamoDbLocal local = TestSetup.dynamoDb();
        PeriodTablesConfig config = config(local, "stalled");
        try (TableManager manager = TableManager.create(config, TestSetup.clients(config), TestSetup.fastSettings())) {
            RotationController controller = controller(manager, config);
            controller.onWatermark(Instant.parse("2026-11-20T10:00:00Z").toEpochMilli());
            drain(controller);
            wall.addAndGet(Duration.ofMinutes(16).toMillis()); // longer than rotation.lead without progress
            controller.onWallClock();
            drain(controller);
            String wallTable = config.naming().periodTableOf(Instant.ofEpochMilli(wall.get()));
            assertThat(TestSetup.tableNames(local, config.naming().prefix())).contains(wallTable);
        }
    }

    private static PeriodTablesConfig config(DynamoDbLocal local, String name) {
        return TestSetup.config(local.endpoint(), "tables.prefix", TestSetup.uniquePrefix(name), "tables.period", "PT1H");
    }

    private RotationController controller(TableManager manager, PeriodTablesConfig config) {
        return new RotationController(manager, RotationPlanner.of(config), config.naming(), new RotationState(),
                mailbox::add, event -> { }, new RotationMetrics(new UnregisteredMetricsGroup(), () -> 0), wall::get,
                Duration.ofSeconds(1));
    }

    private void drain(RotationController controller) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (controller.pending() > 0 || !mailbox.isEmpty()) {
            assertThat(System.nanoTime()).as("operations did not finish within 30 s").isLessThan(deadline);
            Runnable action = mailbox.poll(50, TimeUnit.MILLISECONDS);
            if (action != null) {
                action.run();
            }
        }
    }
}
