package io.periodtables.query;

import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.WriteSharding;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * Reads one device's readings from one period or late table: one {@code Query} per shard
 * (partition key {@code deviceId} or {@code deviceId#k}), all shards in parallel, each
 * followed page by page, then merged by {@code sk}. A table that does not exist, or vanishes
 * while it is read, is a {@link TableRead#missing} answer, not an error.
 */
final class TableReader {

    private final DynamoDbAsyncClient client;
    private final DynamoDbRetry retry;
    private final TableShards shards;
    private final boolean ttlAttribute;
    private final int pageSize;

    TableReader(
            DynamoDbAsyncClient client, DynamoDbRetry retry, TableShards shards, boolean ttlAttribute, int pageSize) {
        this.client = client;
        this.retry = retry;
        this.shards = shards;
        this.ttlAttribute = ttlAttribute;
        this.pageSize = pageSize;
    }

    /** The device's readings of {@code [fromMillis, toMillis)} in {@code table}, oldest first. */
    CompletableFuture<TableRead> range(String table, String deviceId, long fromMillis, long toMillis) {
        Map<String, AttributeValue> values = new HashMap<>();
        values.put(":from", AttributeValue.fromS(WriteSharding.sortKeyInstant(fromMillis)));
        values.put(":to", AttributeValue.fromS(WriteSharding.sortKeyInstant(toMillis)));
        String between = ItemAttributes.SK + " BETWEEN :from AND :to";
        return read(table, deviceId, between, values, true, pageSize, Integer.MAX_VALUE);
    }

    /** The device's newest {@code n} readings in {@code table}, newest first. */
    CompletableFuture<TableRead> newest(String table, String deviceId, int n) {
        return read(table, deviceId, null, Map.of(), false, n, n);
    }

    private CompletableFuture<TableRead> read(
            String table,
            String deviceId,
            String skCondition,
            Map<String, AttributeValue> skValues,
            boolean oldestFirst,
            int limit,
            int maxReadings) {
        AtomicInteger requests = new AtomicInteger();
        return shards.of(table).thenCompose(shape -> {
            if (shape.isEmpty()) {
                return CompletableFuture.completedFuture(TableRead.missing(table, requests.get()));
            }
            String[] keys = new WriteSharding(shape.get().shards()).partitionKeysOf(deviceId);
            List<CompletableFuture<List<StoredReading>>> perShard = new ArrayList<>();
            for (int k = 0; k < keys.length; k++) {
                Map<String, AttributeValue> values = new HashMap<>(skValues);
                values.put(":pk", AttributeValue.fromS(keys[k]));
                QueryRequest.Builder query = QueryRequest.builder()
                        .tableName(table)
                        .keyConditionExpression(
                                ItemAttributes.PK + " = :pk" + (skCondition == null ? "" : " AND " + skCondition))
                        .expressionAttributeValues(values)
                        .scanIndexForward(oldestFirst);
                if (limit > 0) {
                    query.limit(limit);
                }
                perShard.add(pages(query.build(), null, new ArrayList<>(), maxReadings, requests, deviceId, table, k));
            }
            return CompletableFuture.allOf(perShard.toArray(CompletableFuture[]::new))
                    .handle((ignored, error) -> {
                        if (error != null && DynamoDbRetry.isNotFound(error)) {
                            return TableRead.missing(table, requests.get());
                        }
                        if (error != null) {
                            throw new QueryFailedException(
                                    "Query of table " + table + " for device '" + deviceId + "' failed: "
                                            + DynamoDbRetry.describe(error),
                                    DynamoDbRetry.unwrap(error));
                        }
                        Comparator<StoredReading> bySk = Comparator.comparing(StoredReading::sk);
                        List<StoredReading> merged = new ArrayList<>();
                        perShard.forEach(f -> merged.addAll(f.join()));
                        merged.sort(oldestFirst ? bySk : bySk.reversed());
                        List<StoredReading> kept =
                                merged.size() > maxReadings ? merged.subList(0, maxReadings) : merged;
                        return new TableRead(
                                table,
                                true,
                                List.copyOf(kept),
                                requests.get(),
                                Optional.ofNullable(shape.get().fallbackNote()));
                    });
        });
    }

    private CompletableFuture<List<StoredReading>> pages(
            QueryRequest query,
            Map<String, AttributeValue> startKey,
            List<StoredReading> found,
            int max,
            AtomicInteger requests,
            String deviceId,
            String table,
            int shard) {
        QueryRequest page = startKey == null
                ? query
                : query.toBuilder().exclusiveStartKey(startKey).build();
        return retry.call(() -> {
                    requests.incrementAndGet();
                    return client.query(page);
                })
                .thenCompose((QueryResponse response) -> {
                    for (Map<String, AttributeValue> item : response.items()) {
                        found.add(StoredReading.of(deviceId, table, shard, item, ttlAttribute));
                    }
                    boolean more = response.hasLastEvaluatedKey()
                            && !response.lastEvaluatedKey().isEmpty();
                    return more && found.size() < max
                            ? pages(query, response.lastEvaluatedKey(), found, max, requests, deviceId, table, shard)
                            : CompletableFuture.completedFuture(found);
                });
    }
}
