package io.periodtables.rotation.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.WritersTable;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.Dynalite;
import io.periodtables.rotation.ReconcilerHarness;
import io.periodtables.rotation.TestSetup;
import java.time.Instant;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * A closed table keeps its write capacity until every writer of the job has reported, in the
 * writers table, an acknowledged watermark that closes it: a writer that has not reported, one
 * that reported too little, or one of another job, holds it; the last one to catch up lowers it,
 * and nothing is raised or lowered meanwhile.
 */
class TierWaitsForWritersITCase {

    @Test
    void closedTableIsLoweredOnlyOnceEveryWriterOfTheJobHasWrittenItThrough() throws Exception {
        Dynalite local = TestSetup.dynamoDb();
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("writers"),
                "tables.period",
                "PT1M",
                "rotation.lead",
                "PT10S",
                "window.allowed-lateness",
                "PT5S");
        try (DynamoDbAsyncClient client = TestSetup.clients(config).newAsyncClient(2)) {
            WritersTable writers = new WritersTable(client, config.naming());
            writers.ensure().join();
            WritersTable.Writer first = new WritersTable.Writer("period", "job-1", 0, 2, 0);
            WritersTable.Writer second = new WritersTable.Writer("period", "job-1", 1, 2, 0);
            WritersTable.Writer otherJob = new WritersTable.Writer("period", "job-0", 1, 2, 0);
            Reconciler.Writers job = () -> writers.acknowledged("period", "job-1", 0);
            try (ReconcilerHarness rotation = new ReconcilerHarness(config, Instant.now(), null, job)) {
                rotation.start();
                Period period = config.calendar().periodOf(Instant.parse("2021-03-01T10:00:30Z"));
                String table = config.naming().periodTable(period);
                rotation.reconciler.onReading(period.start().plusSeconds(30).toEpochMilli());
                rotation.watermark(period.start().plusSeconds(30));
                assertThat(rotation.events)
                        .anyMatch(e -> e.table().equals(table) && e.kind() == RotationEvent.Kind.TABLE_READY);

                long closing = period.end().plusSeconds(6).toEpochMilli(); // past end + allowed lateness
                writers.publish(first, closing, Instant.now()).join();
                writers.publish(otherJob, closing, Instant.now()).join();
                rotation.watermark(Instant.ofEpochMilli(closing)).poll().tick();
                assertThat(writeUnits(local, table))
                        .as("one writer of the job has not reported")
                        .isEqualTo(1000L);
                assertThat(rotation.metrics.tablesAwaitingWriters()).isEqualTo(1);

                writers.publish(second, period.end().toEpochMilli(), Instant.now())
                        .join(); // within the grace: not closed
                rotation.poll().tick();
                assertThat(writeUnits(local, table))
                        .as("the second writer has not written the period through")
                        .isEqualTo(1000L);

                writers.publish(second, closing, Instant.now()).join();
                writers.publish(second, period.start().toEpochMilli(), Instant.now())
                        .join(); // an overtaken put does not move it back
                assertThat(writers.acknowledged("period", "job-1", 0).join()).isEqualTo(OptionalLong.of(closing));
                rotation.poll();
                assertThat(writeUnits(local, table)).isEqualTo(1L);
                assertThat(TestSetup.describe(local, table)
                                .provisionedThroughput()
                                .readCapacityUnits())
                        .isEqualTo(100L);
                assertThat(rotation.metrics.tablesAwaitingWriters()).isZero();
            }
        }
    }

    @Test
    void aLatePublishOfThePreviousAttemptNeverCountsForTheRestartedWriter() throws Exception {
        Dynalite local = TestSetup.dynamoDb();
        PeriodTablesConfig config = TestSetup.config(
                local.endpoint(),
                "tables.prefix",
                TestSetup.uniquePrefix("failover"),
                "tables.period",
                "PT1M",
                "rotation.lead",
                "PT10S",
                "window.allowed-lateness",
                "PT5S");
        try (DynamoDbAsyncClient client = TestSetup.clients(config).newAsyncClient(2)) {
            WritersTable writers = new WritersTable(client, config.naming());
            writers.ensure().join();
            // A failover keeps the job id: attempt 1 of the same subtask restarts its item, then a
            // put of attempt 0, still in flight when it was cancelled, lands.
            WritersTable.Writer previous = new WritersTable.Writer("period", "job-1", 0, 1, 0);
            WritersTable.Writer restarted = new WritersTable.Writer("period", "job-1", 0, 1, 1);
            Reconciler.Writers job = () -> writers.acknowledged("period", "job-1", 1);
            try (ReconcilerHarness rotation = new ReconcilerHarness(config, Instant.now(), null, job)) {
                rotation.start();
                Period period = config.calendar().periodOf(Instant.parse("2021-03-01T10:00:30Z"));
                String table = config.naming().periodTable(period);
                rotation.reconciler.onReading(period.start().plusSeconds(30).toEpochMilli());
                rotation.watermark(period.start().plusSeconds(30));

                long closing = period.end().plusSeconds(6).toEpochMilli();
                writers.start(restarted, Instant.now()).join();
                writers.publish(previous, closing, Instant.now()).join();
                rotation.watermark(Instant.ofEpochMilli(closing)).poll().tick();
                assertThat(writeUnits(local, table))
                        .as("the restarted writer has written nothing through; attempt 0's word does not count")
                        .isEqualTo(1000L);

                writers.publish(restarted, closing, Instant.now()).join();
                rotation.poll();
                assertThat(writeUnits(local, table)).isEqualTo(1L);
            }
        }
    }

    private static long writeUnits(Dynalite local, String table) {
        return TestSetup.describe(local, table).provisionedThroughput().writeCapacityUnits();
    }
}
