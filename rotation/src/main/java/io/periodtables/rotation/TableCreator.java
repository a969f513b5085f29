package io.periodtables.rotation;

import io.periodtables.conf.ItemAttributes;
import io.periodtables.conf.ConfigKeys;
import io.periodtables.conf.PeriodTablesConfig;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.SSEType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.Tag;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * Creates one table idempotently: CreateTable ({@code ResourceInUseException} means it is
 * there), wait for ACTIVE with the SDK waiter, check the key schema, enable TTL on
 * {@code ttl}. Each step runs in the {@link RetryLoop}.
 */
final class TableCreator {
    private static final Logger LOG = LoggerFactory.getLogger(TableCreator.class);

    /** Attribute names of the key every period-tables table has. */
    static final String PARTITION_KEY = ItemAttributes.PK;
    static final String SORT_KEY = ItemAttributes.SK;
    static final String TTL_ATTRIBUTE = ItemAttributes.TTL;

    private final PeriodTablesConfig config;
    private final DynamoDbAsyncClient client;
    private final TableWaits waits;
    private final RetryLoop retry;
    private final TableManagerStats stats;

    TableCreator(PeriodTablesConfig config, DynamoDbAsyncClient client, TableWaits waits, RetryLoop retry,
            TableManagerStats stats) {
        this.config = config;
        this.waits = waits;
        this.client = client;
        this.retry = retry;
        this.stats = stats;
    }

    CompletableFuture<EnsuredTable> ensure(TableSpec spec) {
        AtomicBoolean created = new AtomicBoolean();
        return retry.run("create table " + spec.name(), () -> createAndWait(spec, created))
                .thenCompose(table -> {
                    checkKeySchema(table);
                    return spec.ttl() ? enableTtl(spec.name()).thenApply(ignored -> table) : CompletableFuture.completedFuture(table);
                })
                .thenApply(table -> {
                    EnsuredTable result = new EnsuredTable(spec.name(), created.get(), TableInfo.of(table));
                    if (created.get()) {
                        stats.tablesCreated.incrementAndGet();
                        LOG.info("Created table {} ({}, tags {})", spec.name(), spec.capacity(), spec.tags());
                    } else {
                        stats.tablesFoundExisting.incrementAndGet();
                        LOG.debug("Table {} already exists and is ACTIVE", spec.name());
                    }
                    return result;
                });
    }

    /** CreateTable, then wait for ACTIVE; one attempt of the pair, so a timed-out wait creates again. */
    private CompletableFuture<TableDescription> createAndWait(TableSpec spec, AtomicBoolean created) {
        return client.createTable(request(spec))
                .handle((response, error) -> {
                    if (error == null) {
                        created.set(true);
                        return true;
                    }
                    if (ControlPlaneErrors.isInUse(error)) {
                        return false; // exists (or is being created by someone else): wait for it
                    }
                    throw new java.util.concurrent.CompletionException(ControlPlaneErrors.unwrap(error));
                })
                .thenCompose(ignored -> waits.untilActive(spec.name()));
    }

    private CreateTableRequest request(TableSpec spec) {
        CreateTableRequest.Builder b = CreateTableRequest.builder()
                .tableName(spec.name())
                .keySchema(key(PARTITION_KEY, KeyType.HASH), key(SORT_KEY, KeyType.RANGE))
                .attributeDefinitions(stringAttribute(PARTITION_KEY), stringAttribute(SORT_KEY))
                .tags(spec.tags().entrySet().stream()
                        .map(e -> Tag.builder().key(e.getKey()).value(e.getValue()).build())
                        .collect(Collectors.toList()));
        if (spec.capacity().onDemand()) {
            b.billingMode(BillingMode.PAY_PER_REQUEST);
        } else {
            b.billingMode(BillingMode.PROVISIONED).provisionedThroughput(p -> p
                    .writeCapacityUnits(spec.capacity().writeUnits())
                    .readCapacityUnits(spec.capacity().readUnits()));
        }
        config.find(ConfigKeys.TABLES_SSE_KMS_KEY).ifPresent(key ->
                b.sseSpecification(s -> s.enabled(true).sseType(SSEType.KMS).kmsMasterKeyId(key)));
        if (config.get(ConfigKeys.TABLES_DELETION_PROTECTION)) {
            b.deletionProtectionEnabled(true);
        }
        return b.build();
    }

    private static void checkKeySchema(TableDescription table) {
        Map<String, String> keys = table.keySchema().stream()
                .collect(Collectors.toMap(KeySchemaElement::attributeName, KeySchemaElement::keyTypeAsString));
        Map<String, String> types = table.attributeDefinitions().stream()
                .collect(Collectors.toMap(AttributeDefinition::attributeName, AttributeDefinition::attributeTypeAsString));
        boolean expected = keys.equals(Map.of(PARTITION_KEY, "HASH", SORT_KEY, "RANGE"))
                && "S".equals(types.get(PARTITION_KEY))
                && "S".equals(types.get(SORT_KEY));
        if (!expected) {
            List<String> found = table.keySchema().stream()
                    .map(k -> k.attributeName() + " (" + types.get(k.attributeName()) + ", " + k.keyTypeAsString() + ")")
                    .collect(Collectors.toList());
            throw new TableSchemaMismatchException(table.tableName(), String.join(", ", found));
        }
    }

    private CompletableFuture<Void> enableTtl(String table) {
        return retry.run("enable TTL on " + table, () -> client
                .updateTimeToLive(b -> b.tableName(table)
                        .timeToLiveSpecification(t -> t.enabled(true).attributeName(TTL_ATTRIBUTE)))
                .handle((response, error) -> {
                    if (error != null && !ControlPlaneErrors.isTtlAlreadyEnabled(error)) {
                        throw new java.util.concurrent.CompletionException(ControlPlaneErrors.unwrap(error));
                    }
                    return (Void) null;
                }))
                .exceptionally(error -> {
                    // The table is usable without TTL; items just do not expire. Say so loudly.
                    stats.failures.incrementAndGet();
                    LOG.warn("Could not enable TTL on {} (attribute {}): {}", table, TTL_ATTRIBUTE,
                            ControlPlaneErrors.describe(error));
                    return null;
                });
    }

    private static KeySchemaElement key(String name, KeyType type) {
        return KeySchemaElement.builder().attributeName(name).keyType(type).build();
    }

    private static AttributeDefinition stringAttribute(String name) {
        return AttributeDefinition.builder().attributeName(name).attributeType(ScalarAttributeType.S).build();
    }
}
