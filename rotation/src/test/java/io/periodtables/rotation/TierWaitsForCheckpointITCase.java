package io.periodtables.rotation;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.conf.Period;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.emulators.Dynalite;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * With checkpointing on, a closed table keeps its write capacity until a checkpoint covering
 * the closing watermark completes: only then has the sink flushed the period's last readings.
 */
class TierWaitsForCheckpointITCase {

    @Test
    void closedTableIsDialedDownOnlyAfterACompletedCheckpoint() throws Exception {
        Dynalite local = TestSetup.dynamoDb();
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("gate"),
                "tables.period",
                "PT1M",
                "rotation.lead",
                "PT10S",
                "window.allowed-lateness",
                "PT5S");
        try (ReconcilerHarness rotation = new ReconcilerHarness(config, Instant.now())) {
            rotation.reconciler.gateLoweringOnCheckpoints(Long.MIN_VALUE);
            rotation.start();
            Period first = config.calendar().periodOf(Instant.parse("2021-03-01T10:00:30Z"));
            String table = config.naming().periodTable(first);
            rotation.reconciler.onReading(first.start().plusSeconds(30).toEpochMilli());
            rotation.watermark(first.start().plusSeconds(30));
            assertThat(rotation.events)
                    .anyMatch(e -> e.table().equals(table) && e.kind() == RotationEvent.Kind.TABLE_READY);

            long closing = first.end().plusSeconds(6).toEpochMilli(); // past end + allowed lateness
            rotation.watermark(Instant.ofEpochMilli(closing)).tick();
            assertThat(TestSetup.describe(local, table).provisionedThroughput().writeCapacityUnits())
                    .as("no checkpoint has covered the closing watermark yet")
                    .isEqualTo(1000L);

            rotation.reconciler.onCheckpointCovered(closing);
            rotation.drain();
            assertThat(TestSetup.describe(local, table).provisionedThroughput().writeCapacityUnits())
                    .isEqualTo(1L);
            assertThat(TestSetup.describe(local, table).provisionedThroughput().readCapacityUnits())
                    .isEqualTo(100L);
        }
    }
}
