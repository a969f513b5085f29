package io.periodtables.core.dynamodb;

import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.period.TableNaming;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.flink.annotation.PublicEvolving;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/**
 * The latest table ({@code <prefix>_latest}, on-demand, never deleted by retention): one item per
 * device with its newest stored reading by event time, ties broken by sort key. Key: {@code pk}
 * (S) = the device id. Attributes: {@code sk} (S) = the reading's sort key in its table
 * ({@code <instant>#<hash>}, so text order is event-time order), {@code table} (S) = the table
 * holding it, {@code reading} (M) = its payload attributes as stored. A put is conditional on
 * its {@code sk} being at least the stored one, so a replay or a shard behind the others never
 * moves a device backwards, and an {@code eventId} resent with another payload replaces it (the
 * last sent wins, as in the period table).
 */
@PublicEvolving
public final class LatestTable {
    public static final String TABLE = "table";
    public static final String READING = "reading";

    private final DynamoDbAsyncClient client;
    private final String table;
    private final long warmWrites;

    /** For reading, or writing to a table created cold. */
    public LatestTable(DynamoDbAsyncClient client, TableNaming naming) {
        this(client, naming, 0);
    }

    /** For writing: {@link #ensure} prewarms the table to {@code warmWrites} write units per second (0: not). */
    public LatestTable(DynamoDbAsyncClient client, TableNaming naming, long warmWrites) {
        this.client = client;
        this.table = naming.latestTable();
        this.warmWrites = warmWrites;
    }

    public String name() {
        return table;
    }

    /** One device's newest reading, as its item holds it. */
    @PublicEvolving
    public record Latest(String device, String sortKey, String table, Map<String, AttributeValue> reading) {

        /** The item of the latest table. */
        public Map<String, AttributeValue> item() {
            Map<String, AttributeValue> item = new HashMap<>();
            item.put(ItemAttributes.PK, AttributeValue.fromS(device));
            item.put(ItemAttributes.SK, AttributeValue.fromS(sortKey));
            item.put(TABLE, AttributeValue.fromS(table));
            item.put(READING, AttributeValue.fromM(reading));
            return item;
        }

        public static Latest of(Map<String, AttributeValue> item) {
            AttributeValue reading = item.get(READING);
            return new Latest(
                    item.get(ItemAttributes.PK).s(),
                    item.get(ItemAttributes.SK).s(),
                    item.get(TABLE).s(),
                    reading == null || reading.m() == null ? Map.of() : reading.m());
        }
    }

    /**
     * Creates the table unless it exists (a concurrent creation counts) and waits until it is
     * active. With warm writes, creates it prewarmed, or raises the {@code WarmThroughput} of an
     * existing table that has less: every device whose reading changes is a put in the same
     * second, which a cold on-demand table serves at 4,000 a second.
     */
    public CompletableFuture<Void> ensure() {
        return BookkeepingTables.ensure(client, table, "latest", warmWrites, ItemAttributes.PK);
    }

    /** Stores {@code latest} unless the device's stored reading is as new or newer; true when stored. */
    public CompletableFuture<Boolean> putIfNewer(Latest latest) {
        Map<String, AttributeValue> item = latest.item();
        return client.putItem(b -> b.tableName(table)
                        .item(item)
                        .conditionExpression("attribute_not_exists(#pk) OR #sk <= :sk")
                        .expressionAttributeNames(Map.of("#pk", ItemAttributes.PK, "#sk", ItemAttributes.SK))
                        .expressionAttributeValues(Map.of(":sk", item.get(ItemAttributes.SK))))
                .thenApply(response -> true)
                .exceptionallyCompose(error -> DynamoDbFailure.unwrap(error) instanceof ConditionalCheckFailedException
                        ? CompletableFuture.completedFuture(false)
                        : CompletableFuture.failedFuture(error));
    }

    /**
     * The newest reading of {@code device}, read consistently; empty when none is stored or the table does not exist.
     */
    public CompletableFuture<Optional<Latest>> get(String device) {
        return client.getItem(b -> b.tableName(table)
                        .key(Map.of(ItemAttributes.PK, AttributeValue.fromS(device)))
                        .consistentRead(true))
                .thenApply(response -> response.hasItem() && !response.item().isEmpty()
                        ? Optional.of(Latest.of(response.item()))
                        : Optional.<Latest>empty())
                .exceptionally(error -> {
                    if (DynamoDbFailure.unwrap(error) instanceof ResourceNotFoundException) {
                        return Optional.empty();
                    }
                    throw new CompletionException(DynamoDbFailure.unwrap(error));
                });
    }

    /** One page of the whole fleet, from {@code startKey} (null: the first page), at most {@code limit} items. */
    public CompletableFuture<ScanResponse> page(Map<String, AttributeValue> startKey, int limit) {
        return client.scan(b -> b.tableName(table).limit(limit).exclusiveStartKey(startKey));
    }

    /** The items of a page. */
    public static List<Latest> latest(ScanResponse page) {
        return page.items().stream().map(Latest::of).toList();
    }
}
