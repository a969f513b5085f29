package io.periodtables.emulators;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.stream.IntStream;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.retry.backoff.FixedDelayBackoffStrategy;
import software.amazon.awssdk.core.waiters.WaiterOverrideConfiguration;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbWaiter;

/**
 * Tables as tests and benchmarks set them up against the emulator: the project's key schema and
 * the wait for {@code ACTIVE} that code against DynamoDB owes after {@code CreateTable} or
 * {@code UpdateTable}, and the wait for a table to be gone after {@code DeleteTable} (the fidelity
 * layer keeps tables {@code CREATING} / {@code UPDATING} / {@code DELETING} a while).
 */
public final class TestTables {
    private static final Duration POLL = Duration.ofMillis(50);
    private static final Duration BOUND = Duration.ofSeconds(30);

    private TestTables() {}

    /** An on-demand table keyed as period tables are: string {@code pk} and {@code sk}. */
    public static CreateTableRequest onDemand(String table) {
        return CreateTableRequest.builder()
                .tableName(table)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(attribute("pk"), attribute("sk"))
                .keySchema(key("pk", KeyType.HASH), key("sk", KeyType.RANGE))
                .build();
    }

    /**
     * Waits until each table is {@code ACTIVE} with the SDK's {@code TableExists} waiter, polling
     * every 50 ms for at most 30 s; throws with the table's name when one is not.
     */
    public static void awaitActive(DynamoDbClient client, String... tables) {
        await(client, tables, "did not become ACTIVE", (w, t) -> w.waitUntilTableExists(b -> b.tableName(t)));
    }

    /**
     * Waits until each table is gone, as code against DynamoDB must before it counts on that after
     * {@code DeleteTable}: DynamoDB lists a deleted table and describes it {@code DELETING} for a
     * while (the layer describes it so for 500 ms), then answers {@code ResourceNotFoundException}.
     * With the SDK's {@code TableNotExists} waiter, polling every 50 ms for at most 30 s; throws
     * with the table's name when one is still there.
     */
    public static void awaitGone(DynamoDbClient client, String... tables) {
        await(client, tables, "was not gone", (w, t) -> w.waitUntilTableNotExists(b -> b.tableName(t)));
    }

    /** Runs {@code wait} on each table with one waiter; {@code failure} says what did not happen. */
    private static void await(
            DynamoDbClient client, String[] tables, String failure, BiConsumer<DynamoDbWaiter, String> wait) {
        try (DynamoDbWaiter waiter = DynamoDbWaiter.builder()
                .client(client)
                .overrideConfiguration(WaiterOverrideConfiguration.builder()
                        .backoffStrategy(FixedDelayBackoffStrategy.create(POLL))
                        .maxAttempts(Integer.MAX_VALUE)
                        .waitTimeout(BOUND)
                        .build())
                .build()) {
            for (String table : tables) {
                try {
                    wait.accept(waiter, table);
                } catch (SdkClientException timedOut) {
                    throw new AssertionError(table + " " + failure + " within " + BOUND, timedOut);
                }
            }
        }
    }

    /**
     * Writes {@code items} items of {@code kilobytes} KB each, one partition key apiece and sort key
     * {@code sk}, in {@code BatchWriteItem} calls of 25 at once, as a burst of that many write units;
     * returns how many items DynamoDB refused (unprocessed, or the whole call throttled). Use a
     * client without retries ({@link Dynalite#syncClientWithoutRetries()}).
     */
    public static long refusedOfABurst(DynamoDbClient client, String table, int items, int kilobytes, String sk) {
        long refused = 0;
        for (int first = 0; first < items; first += 25) {
            List<WriteRequest> batch = IntStream.range(first, Math.min(items, first + 25))
                    .mapToObj(i -> WriteRequest.builder()
                            .putRequest(PutRequest.builder()
                                    .item(Map.of(
                                            "pk", AttributeValue.fromS("device-" + i),
                                            "sk", AttributeValue.fromS(sk),
                                            "payload", AttributeValue.fromS("x".repeat(kilobytes * 1024 - 96))))
                                    .build())
                            .build())
                    .toList();
            try {
                refused += client.batchWriteItem(b -> b.requestItems(Map.of(table, batch)))
                        .unprocessedItems()
                        .getOrDefault(table, List.of())
                        .size();
            } catch (SdkException throttled) {
                refused += batch.size();
            }
        }
        return refused;
    }

    private static AttributeDefinition attribute(String name) {
        return AttributeDefinition.builder()
                .attributeName(name)
                .attributeType(ScalarAttributeType.S)
                .build();
    }

    private static KeySchemaElement key(String name, KeyType type) {
        return KeySchemaElement.builder().attributeName(name).keyType(type).build();
    }
}
