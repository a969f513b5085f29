package io.periodtables.bench.query;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.model.Reading;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Tag;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The query benchmark's data: one day of hourly period tables (tagged with their shard count, as
 * the rotation creates them) holding one device with a reading every 10 s and a fleet of
 * others with one a minute, written with direct {@code BatchWriteItem}s of the items the sink
 * writes ({@link WriteSharding} keys, {@link ItemAttributes} payload).
 */
final class QueryData {

    static final String DEVICE = "device-main";
    static final long DEVICE_STEP_MILLIS = 10_000;
    static final long OTHERS_STEP_MILLIS = 60_000;
    private static final int WRITERS = 4;

    private QueryData() {}

    /** The period tables of {@code [from, to)}, oldest first. */
    static List<String> periodTables(PeriodTablesConfig config, Instant from, Instant to) {
        TableNaming naming = config.naming();
        List<String> tables = new ArrayList<>();
        for (Period p = naming.calendar().periodOf(from);
                p.start().isBefore(to);
                p = naming.calendar().next(p)) {
            tables.add(naming.periodTable(p));
        }
        return tables;
    }

    /** Creates the day's tables and writes the readings; returns the number of items written. */
    static long write(DynamoDbClient client, PeriodTablesConfig config, Instant from, Instant to, int otherDevices)
            throws Exception {
        int shards = config.get(TableKeys.TABLES_SHARDS);
        for (String table : periodTables(config, from, to)) {
            createTagged(client, table, shards);
        }
        WriteSharding sharding = new WriteSharding(shards);
        TableNaming naming = config.naming();
        Map<String, List<WriteRequest>> byTable = new LinkedHashMap<>();
        long items = 0;
        for (long t = from.toEpochMilli(); t < to.toEpochMilli(); t += DEVICE_STEP_MILLIS) {
            boolean minute = t % OTHERS_STEP_MILLIS == 0;
            for (int d = 0; d <= (minute ? otherDevices : 0); d++) {
                String device = d == 0 ? DEVICE : String.format(Locale.ROOT, "device-%05d", d);
                // the others' readings sit 1 s after the minute: no two items share an instant by accident
                long at = d == 0 ? t : t + 1_000;
                byTable.computeIfAbsent(naming.periodTableOf(Instant.ofEpochMilli(at)), k -> new ArrayList<>())
                        .add(put(sharding, reading(device, at)));
                items++;
            }
        }
        ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (Map.Entry<String, List<WriteRequest>> e : byTable.entrySet()) {
                List<WriteRequest> puts = e.getValue();
                for (int i = 0; i < puts.size(); i += 25) {
                    List<WriteRequest> batch = puts.subList(i, Math.min(puts.size(), i + 25));
                    done.add(writers.submit(() -> writeBatch(client, e.getKey(), batch)));
                }
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            writers.shutdownNow();
        }
        return items;
    }

    /** A seed-shaped reading: deviceId, timestamp, temperature, humidity, pressure. */
    static Reading reading(String device, long millis) {
        double phase = (millis / 1000 % 86_400) / 86_400.0 * 2 * Math.PI;
        String json = String.format(
                Locale.ROOT,
                "{\"deviceId\":\"%s\",\"timestamp\":\"%s\",\"temperature\":%.2f,\"humidity\":%.2f,\"pressure\":%.2f}",
                device,
                Instant.ofEpochMilli(millis),
                20 + 5 * Math.sin(phase),
                40 + 10 * Math.cos(phase),
                1000 + (millis / 1000 % 30) / 10.0);
        return new Reading(device, millis, null, json);
    }

    private static WriteRequest put(WriteSharding sharding, Reading reading) {
        Map<String, AttributeValue> item;
        try {
            item = ItemAttributes.ofJsonObject(reading.payloadJson());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        WriteSharding.ItemKey key =
                sharding.keyOf(reading.deviceId(), reading.eventMillis(), reading.eventId(), reading.canonical());
        item.put(ItemAttributes.PK, AttributeValue.fromS(key.pk()));
        item.put(ItemAttributes.SK, AttributeValue.fromS(key.sk()));
        return WriteRequest.builder()
                .putRequest(PutRequest.builder().item(item).build())
                .build();
    }

    private static void writeBatch(DynamoDbClient client, String table, List<WriteRequest> batch) {
        Map<String, List<WriteRequest>> pending = new HashMap<>(Map.of(table, batch));
        for (int attempt = 1; !pending.isEmpty(); attempt++) {
            if (attempt > 20) {
                throw new IllegalStateException("BatchWriteItem into " + table + " kept leaving items unprocessed");
            }
            Map<String, List<WriteRequest>> request = pending;
            BatchWriteItemResponse response = client.batchWriteItem(b -> b.requestItems(request));
            pending = response.hasUnprocessedItems() ? response.unprocessedItems() : Map.of();
        }
    }

    private static void createTagged(DynamoDbClient client, String table, int shards) {
        client.createTable(b -> b.tableName(table)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(
                        AttributeDefinition.builder()
                                .attributeName(ItemAttributes.PK)
                                .attributeType(ScalarAttributeType.S)
                                .build(),
                        AttributeDefinition.builder()
                                .attributeName(ItemAttributes.SK)
                                .attributeType(ScalarAttributeType.S)
                                .build())
                .keySchema(
                        KeySchemaElement.builder()
                                .attributeName(ItemAttributes.PK)
                                .keyType(KeyType.HASH)
                                .build(),
                        KeySchemaElement.builder()
                                .attributeName(ItemAttributes.SK)
                                .keyType(KeyType.RANGE)
                                .build())
                .tags(
                        Tag.builder()
                                .key(TableNaming.MANAGED_BY_TAG)
                                .value(TableNaming.MANAGED_BY_VALUE)
                                .build(),
                        Tag.builder()
                                .key(TableNaming.SHARDS_TAG)
                                .value(Integer.toString(shards))
                                .build()));
    }
}
