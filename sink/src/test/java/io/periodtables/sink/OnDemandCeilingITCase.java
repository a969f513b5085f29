package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.emulators.DynaliteExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * A call throttled at an on-demand table's OnDemandThroughput ceiling carries DynamoDB's
 * {@code ThrottlingReasons}, and the sink reads the table from them (counted as {@code
 * onDemandCeilingThrottles}); a table throttled below its ceiling (warming up) is not blamed on it.
 */
class OnDemandCeilingITCase {
    private static final int BATCHES = 10;

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    @Test
    void aCallThrottledAtTheCeilingNamesTheTable() {
        DynamoDbClient client = DYNAMODB.client();
        create(client, "ceiling_capped", 5L);
        create(client, "ceiling_none", null);
        DYNAMODB.awaitActive("ceiling_capped", "ceiling_none"); // no writes while CREATING
        // the sink's client: no SDK retries, so a throttled call comes back as it is
        PeriodTablesConfig config = ConfigLoader.fromMap(
                Map.of("dynamodb.endpoint", DYNAMODB.endpoint().toString(), "dynamodb.embedded", "false"), true);
        try (DynamoDbAsyncClient sink = DynamoDbClients.of(config).newAsyncClient(1)) {
            assertThat(DynamoDbErrors.onDemandCeilingTables(throttle(sink, "ceiling_capped")))
                    .containsExactly("ceiling_capped");
            assertThat(throttle(sink, "ceiling_none"))
                    .as("4,000 writes/s of a new on-demand table: not throttled by %d writes", BATCHES * 25)
                    .isNull();
        }
    }

    private static void create(DynamoDbClient client, String table, Long maxWrites) {
        client.createTable(b -> {
            b.tableName(table)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .keySchema(k -> k.attributeName("pk").keyType(KeyType.HASH))
                    .attributeDefinitions(a -> a.attributeName("pk").attributeType(ScalarAttributeType.S));
            if (maxWrites != null) {
                b.onDemandThroughput(o -> o.maxWriteRequestUnits(maxWrites).maxReadRequestUnits(maxWrites));
            }
        });
    }

    /**
     * Batches of 25, one after the other, until DynamoDB refuses one whole: its error, or null. A
     * batch over the ceiling's second is refused whole only when that second has served its units
     * already; on a busy machine two batches can fall in two seconds, each served in part.
     */
    private static Throwable throttle(DynamoDbAsyncClient client, String table) {
        Throwable refused = null;
        for (int batch = 0; batch < BATCHES && refused == null; batch++) {
            List<WriteRequest> writes = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                String pk = batch + "-" + i;
                writes.add(WriteRequest.builder()
                        .putRequest(p -> p.item(Map.of("pk", AttributeValue.fromS(pk))))
                        .build());
            }
            refused = catchThrowable(() -> client.batchWriteItem(b -> b.requestItems(Map.of(table, writes)))
                    .join());
        }
        if (refused != null) {
            assertThat(DynamoDbErrors.unwrap(refused)).isInstanceOf(ProvisionedThroughputExceededException.class);
        }
        return refused;
    }
}
