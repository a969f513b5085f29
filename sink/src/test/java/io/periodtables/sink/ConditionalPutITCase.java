package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.item.ItemBuilder;
import io.periodtables.core.owner.MissingTableHandler;
import io.periodtables.emulators.DynaliteExtension;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The rollups' path through {@link BatchWrite}, against dynalite: with a growing attribute each
 * entry that has it is a conditional {@code PutItem}, so a replayed older bucket (fewer readings)
 * leaves the stored newer one alone and still counts as written, while an entry without it (a
 * rejection the sink rerouted) goes out in a {@code BatchWriteItem} beside them.
 */
class ConditionalPutITCase {
    private static final String ROLLUPS = "readings_rollups_2026-11-22T1300";
    private static final String REJECTED = "readings_rejected";

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private final SinkMetrics metrics = new SinkMetrics(new UnregisteredMetricsGroup());
    private final Clock clock = Clock.fixed(Instant.parse("2026-11-22T14:00:00Z"), ZoneOffset.UTC);

    @Test
    void anOlderBucketNeverReplacesANewerOneAndEveryEntryCountsAsWritten() {
        DynamoDbClient admin = DYNAMODB.client();
        create(admin, ROLLUPS);
        create(admin, REJECTED);
        DYNAMODB.awaitActive(ROLLUPS, REJECTED);
        PeriodTablesConfig config = ConfigLoader.fromMap(
                Map.of("dynamodb.endpoint", DYNAMODB.endpoint().toString(), "dynamodb.embedded", "false"), true);
        try (DynamoDbAsyncClient client = DynamoDbClients.of(config).newAsyncClient(2)) {
            BatchWrite write = batchWrite(client);

            BatchOutcome first = write.write(List.of(
                            bucket("dev-1", 5, 9), bucket("dev-2", 1, 4), entry(REJECTED, "rejected", "r1", Map.of())))
                    .join();
            BatchOutcome replay = write.write(List.of(bucket("dev-1", 3, 2))).join();

            assertThat(first.isDone()).isTrue();
            assertThat(replay.isDone()).isTrue();
            assertThat(stored(admin, ROLLUPS, "dev-1"))
                    .as("the newer bucket stays")
                    .containsEntry("readings", AttributeValue.fromN("5"))
                    .containsEntry("max", AttributeValue.fromN("9"));
            assertThat(stored(admin, ROLLUPS, "dev-2")).containsEntry("readings", AttributeValue.fromN("1"));
            assertThat(stored(admin, REJECTED, "rejected")).isNotEmpty();
            assertThat(metrics.notReplaced.getCount()).isEqualTo(1);
            assertThat(metrics.recordsWritten()).isEqualTo(4);
        }
    }

    private BatchWrite batchWrite(DynamoDbAsyncClient client) {
        SinkRecordConverter converter = new SinkRecordConverter(
                TestConfigs.hourly4Shards().naming(),
                new ItemBuilder(TestConfigs.hourly4Shards().sharding(), null),
                clock);
        MissingTableHandler tablesExist = new MissingTableHandler() {
            @Override
            public CompletableFuture<Verdict> ensureTable(String table, Arrival arrival, long eventTime) {
                throw new AssertionError("both tables exist, " + table + " was reported missing");
            }

            @Override
            public CompletableFuture<Boolean> throttled(String table) {
                return CompletableFuture.completedFuture(false);
            }
        };
        return new BatchWrite(
                client,
                tablesExist,
                new Reroutes(converter::lateEntry, converter::rejectionEntry, REJECTED),
                metrics,
                clock,
                "readings");
    }

    private static TableWriteEntry bucket(String device, int readings, int max) {
        return entry(
                ROLLUPS,
                device,
                "PT1M#2026-11-22T13:05:00.000Z",
                Map.of("readings", AttributeValue.fromN("" + readings), "max", AttributeValue.fromN("" + max)));
    }

    private static TableWriteEntry entry(String table, String pk, String sk, Map<String, AttributeValue> payload) {
        Map<String, AttributeValue> item = new HashMap<>(payload);
        item.put("pk", AttributeValue.fromS(pk));
        item.put("sk", AttributeValue.fromS(sk));
        return new TableWriteEntry(table, item, DynamoDbItemSize.of(item), 0);
    }

    private static Map<String, AttributeValue> stored(DynamoDbClient admin, String table, String pk) {
        return admin
                .query(b -> b.tableName(table)
                        .consistentRead(true)
                        .keyConditionExpression("pk = :pk")
                        .expressionAttributeValues(Map.of(":pk", AttributeValue.fromS(pk))))
                .items()
                .stream()
                .findFirst()
                .orElse(Map.of());
    }

    private static void create(DynamoDbClient admin, String table) {
        admin.createTable(b -> b.tableName(table)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .keySchema(
                        k -> k.attributeName("pk").keyType(KeyType.HASH),
                        k -> k.attributeName("sk").keyType(KeyType.RANGE))
                .attributeDefinitions(
                        a -> a.attributeName("pk").attributeType(ScalarAttributeType.S),
                        a -> a.attributeName("sk").attributeType(ScalarAttributeType.S)));
    }
}
