package io.periodtables.core.dynamodb;

import io.periodtables.core.period.TableNaming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.core.retry.backoff.FixedDelayBackoffStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableWarmThroughputDescription;
import software.amazon.awssdk.services.dynamodb.model.Tag;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;
import software.amazon.awssdk.services.dynamodb.model.WarmThroughput;

/**
 * Creates the job's bookkeeping tables (the writers table, the latest table): on-demand, string
 * keys, tagged {@code managed-by=period-tables} and with their role, never touched by retention.
 */
public final class BookkeepingTables {
    /** How long {@link #ensure} waits for a table another writer is creating. */
    private static final Duration ACTIVE_WAIT = Duration.ofMinutes(5);

    private BookkeepingTables() {}

    /**
     * Creates {@code table} unless it exists (a concurrent creation by another writer counts) and
     * waits until it is active; {@code warmWrites} above 0: created prewarmed to that many write
     * units per second, or an existing table with less raised to it (skipped while the table is
     * being created or updated). {@code keys}: the hash key, then the range key if any.
     */
    static CompletableFuture<Void> ensure(
            DynamoDbAsyncClient client, String table, String role, long warmWrites, String... keys) {
        List<AttributeDefinition> attributes = new ArrayList<>();
        List<KeySchemaElement> schema = new ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            attributes.add(AttributeDefinition.builder()
                    .attributeName(keys[i])
                    .attributeType(ScalarAttributeType.S)
                    .build());
            schema.add(KeySchemaElement.builder()
                    .attributeName(keys[i])
                    .keyType(i == 0 ? KeyType.HASH : KeyType.RANGE)
                    .build());
        }
        return client.describeTable(b -> b.tableName(table))
                .thenCompose(found -> warmWritesOf(found.table()) >= warmWrites
                        ? CompletableFuture.<Void>completedFuture(null)
                        : raiseWarmThroughput(client, table, warmWrites))
                .exceptionallyCompose(error -> {
                    if (!(DynamoDbFailure.unwrap(error) instanceof ResourceNotFoundException)) {
                        return CompletableFuture.failedFuture(error);
                    }
                    return client.createTable(b -> b.tableName(table)
                                    .warmThroughput(
                                            warmWrites > 0
                                                    ? WarmThroughput.builder()
                                                            .writeUnitsPerSecond(warmWrites)
                                                            .build()
                                                    : null)
                                    .billingMode(BillingMode.PAY_PER_REQUEST)
                                    .attributeDefinitions(attributes)
                                    .keySchema(schema)
                                    .tags(
                                            Tag.builder()
                                                    .key(TableNaming.MANAGED_BY_TAG)
                                                    .value(TableNaming.MANAGED_BY_VALUE)
                                                    .build(),
                                            Tag.builder()
                                                    .key("period-tables:role")
                                                    .value(role)
                                                    .build()))
                            .<Void>thenApply(created -> null)
                            .exceptionallyCompose(
                                    createError -> DynamoDbFailure.unwrap(createError) instanceof ResourceInUseException
                                            ? CompletableFuture.completedFuture(null)
                                            : CompletableFuture.failedFuture(createError));
                })
                .thenCompose(any -> client.waiter()
                        .waitUntilTableExists(
                                b -> b.tableName(table),
                                o -> o.backoffStrategy(FixedDelayBackoffStrategy.create(Duration.ofMillis(250)))
                                        .waitTimeout(ACTIVE_WAIT)))
                .thenApply(response -> {
                    response.matched().exception().ifPresent(e -> {
                        throw new CompletionException(e);
                    });
                    return null;
                });
    }

    private static long warmWritesOf(TableDescription table) {
        TableWarmThroughputDescription warm = table.warmThroughput();
        return warm == null || warm.writeUnitsPerSecond() == null ? 0 : warm.writeUnitsPerSecond();
    }

    /**
     * Raises an existing table's warm throughput. Any {@code ResourceInUseException} counts as
     * done: while the table is being created or updated (another writer's raise, or any other
     * change) this raise is skipped, and nothing retries it.
     */
    private static CompletableFuture<Void> raiseWarmThroughput(
            DynamoDbAsyncClient client, String table, long warmWrites) {
        return client.updateTable(b -> b.tableName(table).warmThroughput(w -> w.writeUnitsPerSecond(warmWrites)))
                .<Void>thenApply(updated -> null)
                .exceptionallyCompose(error -> DynamoDbFailure.unwrap(error) instanceof ResourceInUseException
                        ? CompletableFuture.completedFuture(null)
                        : CompletableFuture.failedFuture(error));
    }

    /**
     * Turns TTL on for {@code attribute} of {@code table} unless it is on (or turning on): a
     * concurrent call that got there first, answered "already enabled", counts too.
     */
    static CompletableFuture<Void> expireBy(DynamoDbAsyncClient client, String table, String attribute) {
        return client.describeTimeToLive(b -> b.tableName(table)).thenCompose(ttl -> {
            TimeToLiveStatus status = ttl.timeToLiveDescription() == null
                    ? null
                    : ttl.timeToLiveDescription().timeToLiveStatus();
            if (status == TimeToLiveStatus.ENABLED || status == TimeToLiveStatus.ENABLING) {
                return CompletableFuture.completedFuture(null);
            }
            return client.updateTimeToLive(b -> b.tableName(table)
                            .timeToLiveSpecification(t -> t.enabled(true).attributeName(attribute)))
                    .<Void>thenApply(done -> null)
                    .exceptionallyCompose(error -> DynamoDbFailure.messageContains(error, "already enabled")
                            ? CompletableFuture.completedFuture(null)
                            : CompletableFuture.failedFuture(error));
        });
    }
}
