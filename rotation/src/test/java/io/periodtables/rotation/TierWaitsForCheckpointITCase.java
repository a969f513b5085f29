package io.periodtables.rotation;

import io.periodtables.conf.Period;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.emulators.DynamoDbLocal;

import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With checkpointing on, a closed table keeps its write capacity until a checkpoint covering
 * the closing watermark completes: only then has the sink flushed the period's last readings.
 */
class TierWaitsForCheckpointITCase {

    private final LinkedBlockingQueue<Runnable> mailbox = new LinkedBlockingQueue<>();
    private final List<RotationEvent> events = new ArrayList<>();

    @Test
    void closedTableIsDialedDownOnlyAfterACompletedCheckpoint() throws Exception {
        DynamoDbLocal local = TestSetup.dynamoDb();
        String prefix = TestSetup.uniquePrefix("gate");
        PeriodTablesConfig config = TestSetup.config(local.endpoint(), "tables.prefix", prefix, "tables.period", "PT1M",
                "rotation.lead", "PT10S", "window.allowed-lateness", "PT5S");
        try (TableManager manager = TableManager.create(config, TestSetup.clients(config), TestSetup.fastSettings())) {
            RotationController controller = new RotationController(manager, RotationPlanner.of(config), config.naming(),
                    new RotationState(), mailbox::add, events::add,
                    new RotationMetrics(new UnregisteredMetricsGroup(), () -> 0), System::currentTimeMillis,
                    Duration.ofSeconds(1));
            controller.tiersWaitForCheckpoints(Long.MIN_VALUE);

            Period first = config.calendar().periodOf(Instant.parse("2021-03-01T10:00:30Z"));
            String table = config.naming().periodTable(first);
            controller.onWatermark(first.start().plusSeconds(30).toEpochMilli());
            drainUntil(() -> events.stream().anyMatch(e -> e.table().equals(table) && e.kind() == RotationEvent.Kind.TABLE_READY));

            long closing = first.end().plusSeconds(6).toEpochMilli(); // past end + allowed lateness
            controller.onWatermark(closing);
            drainUntil(() -> controller.pending() == 0);
            assertThat(TestSetup.describe(local, table).provisionedThroughput().writeCapacityUnits())
                    .as("no checkpoint has covered the closing watermark yet").isEqualTo(1000L);

            controller.onFlushed(closing);
            drainUntil(() -> events.stream().anyMatch(e -> e.table().equals(table) && e.kind() == RotationEvent.Kind.TIER_SET));
            assertThat(TestSetup.describe(local, table).provisionedThroughput().writeCapacityUnits()).isEqualTo(1L);
            assertThat(TestSetup.describe(local, table).provisionedThroughput().readCapacityUnits()).isEqualTo(100L);
        }
    }

    private void drainUntil(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not reached within 30 s").isLessThan(deadline);
            Runnable action = mailbox.poll(50, TimeUnit.MILLISECONDS);
            if (action != null) {
                action.run();
            }
        }
    }
}
