package io.periodtables.rotation.controlplane;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.period.TableNaming;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.SSEType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.Tag;
import software.amazon.awssdk.services.dynamodb.model.UpdateTableRequest;

/**
 * The control-plane requests of {@link TableManager}, built from configuration (pure): the
 * CreateTable of a period-tables table (key {@code pk}/{@code sk}, billing, tags, encryption,
 * deletion protection, an on-demand period table's {@code tables.on-demand.max} ceiling), the UpdateTable that moves a
 * table to a capacity, and the check that a table found under our name has our key schema.
 */
public final class TableRequests {

    private TableRequests() {}

    /** {@code warmWrites} above 0: an on-demand table is created prewarmed to that many write units per second. */
    static CreateTableRequest create(
            PeriodTablesConfig config, String table, Capacity capacity, Map<String, String> tags, long warmWrites) {
        CreateTableRequest.Builder b = CreateTableRequest.builder()
                .tableName(table)
                .keySchema(key(ItemAttributes.PK, KeyType.HASH), key(ItemAttributes.SK, KeyType.RANGE))
                .attributeDefinitions(stringAttribute(ItemAttributes.PK), stringAttribute(ItemAttributes.SK))
                .tags(tags.entrySet().stream()
                        .map(e -> Tag.builder()
                                .key(e.getKey())
                                .value(e.getValue())
                                .build())
                        .collect(Collectors.toList()));
        if (capacity.onDemand()) {
            b.billingMode(BillingMode.PAY_PER_REQUEST);
            boolean period = config.naming()
                    .parse(table)
                    .filter(ref -> ref.kind() == TableNaming.TableRef.Kind.PERIOD)
                    .isPresent();
            config.find(TableKeys.TABLES_ON_DEMAND_MAX)
                    .filter(max -> period)
                    .ifPresent(max -> b.onDemandThroughput(
                            o -> o.maxWriteRequestUnits(max.writeUnits()).maxReadRequestUnits(max.readUnits())));
            if (warmWrites > 0) {
                b.warmThroughput(w -> w.writeUnitsPerSecond(warmWrites));
            }
        } else {
            b.billingMode(BillingMode.PROVISIONED)
                    .provisionedThroughput(
                            p -> p.writeCapacityUnits(capacity.writeUnits()).readCapacityUnits(capacity.readUnits()));
        }
        config.find(TableKeys.TABLES_SSE_KMS_KEY)
                .ifPresent(key -> b.sseSpecification(
                        s -> s.enabled(true).sseType(SSEType.KMS).kmsMasterKeyId(key)));
        if (config.get(TableKeys.TABLES_DELETION_PROTECTION)) {
            b.deletionProtectionEnabled(true);
        }
        return b.build();
    }

    /** Moves a table from {@code current} to {@code target} (billing mode included). */
    static UpdateTableRequest update(String table, Capacity current, Capacity target) {
        return update(table, current, target, null);
    }

    /**
     * As {@link #update(String, Capacity, Capacity)}, and to {@code tableClass} unless null, in
     * the same request (DynamoDB takes a table class together with a capacity change).
     */
    static UpdateTableRequest update(String table, Capacity current, Capacity target, String tableClass) {
        UpdateTableRequest.Builder b = UpdateTableRequest.builder().tableName(table);
        if (tableClass != null) {
            b.tableClass(tableClass);
        }
        if (current.equals(target)) {
            return b.build();
        }
        if (target.onDemand()) {
            return b.billingMode(BillingMode.PAY_PER_REQUEST).build();
        }
        if (current.onDemand()) {
            b.billingMode(BillingMode.PROVISIONED);
        }
        return b.provisionedThroughput(
                        p -> p.writeCapacityUnits(target.writeUnits()).readCapacityUnits(target.readUnits()))
                .build();
    }

    /** Prewarms an existing on-demand table to {@code warmWrites} write units per second. */
    static UpdateTableRequest warm(String table, long warmWrites) {
        return UpdateTableRequest.builder()
                .tableName(table)
                .warmThroughput(w -> w.writeUnitsPerSecond(warmWrites))
                .build();
    }

    static void checkKeySchema(TableDescription table) {
        Map<String, String> keys = table.keySchema().stream()
                .collect(Collectors.toMap(KeySchemaElement::attributeName, KeySchemaElement::keyTypeAsString));
        Map<String, String> types = table.attributeDefinitions().stream()
                .collect(Collectors.toMap(
                        AttributeDefinition::attributeName, AttributeDefinition::attributeTypeAsString));
        boolean expected = keys.equals(Map.of(ItemAttributes.PK, "HASH", ItemAttributes.SK, "RANGE"))
                && "S".equals(types.get(ItemAttributes.PK))
                && "S".equals(types.get(ItemAttributes.SK));
        if (!expected) {
            List<String> found = table.keySchema().stream()
                    .map(k ->
                            k.attributeName() + " (" + types.get(k.attributeName()) + ", " + k.keyTypeAsString() + ")")
                    .collect(Collectors.toList());
            throw new TableSchemaMismatchException(table.tableName(), String.join(", ", found));
        }
    }

    private static KeySchemaElement key(String name, KeyType type) {
        return KeySchemaElement.builder().attributeName(name).keyType(type).build();
    }

    private static AttributeDefinition stringAttribute(String name) {
        return AttributeDefinition.builder()
                .attributeName(name)
                .attributeType(ScalarAttributeType.S)
                .build();
    }
}
