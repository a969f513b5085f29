package io.periodtables.rotation.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.WritersTable;
import io.periodtables.emulators.Dynalite;
import io.periodtables.rotation.TestSetup;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/**
 * The writers table forgets: TTL is on for {@code expires}, which every put sets five weeks
 * ahead, so the items of ended jobs go; and an older job's items, however far they reached,
 * never count for a later job.
 */
class WritersTableExpiryITCase {

    @Test
    void writersItemsExpireAndAnOlderJobsItemsNeverCountForALaterOne() {
        Dynalite local = TestSetup.dynamoDb();
        PeriodTablesConfig config =
                TestSetup.config(local.endpoint(), "tables.prefix", TestSetup.uniquePrefix("expiry"));
        Instant now = Instant.parse("2026-11-27T10:00:00Z");
        try (DynamoDbAsyncClient client = TestSetup.clients(config).newAsyncClient(2)) {
            WritersTable writers = new WritersTable(client, config.naming());
            writers.ensure().join();
            writers.ensure().join(); // a second writer's start: TTL already on
            writers.publish(new WritersTable.Writer("period", "job-old", 0, 1, 0), Long.MAX_VALUE - 1, now)
                    .join();
            writers.start(new WritersTable.Writer("period", "job-new", 0, 1, 0), now)
                    .join();

            try (DynamoDbClient sync = local.syncClient()) {
                assertThat(sync.describeTimeToLive(b -> b.tableName(writers.name()))
                                .timeToLiveDescription())
                        .satisfies(ttl -> {
                            assertThat(ttl.timeToLiveStatus()).isEqualTo(TimeToLiveStatus.ENABLED);
                            assertThat(ttl.attributeName()).isEqualTo("expires");
                        });
                Map<String, AttributeValue> item = sync.getItem(b -> b.tableName(writers.name())
                                .key(Map.of(
                                        "writer", AttributeValue.fromS("period#job-old"),
                                        "subtask", AttributeValue.fromS("00000"))))
                        .item();
                assertThat(Long.parseLong(item.get("expires").n()))
                        .isEqualTo(now.plus(Duration.ofDays(35)).getEpochSecond());
            }
            assertThat(writers.acknowledged("period", "job-new", 0).join())
                    .as("the later job: nothing written through yet")
                    .isEqualTo(OptionalLong.of(Long.MIN_VALUE));
        }
    }
}
