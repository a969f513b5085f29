package io.periodtables.sink;

import io.periodtables.model.Reading;
import io.periodtables.conf.DynamoDbItemSize;
import io.periodtables.conf.PeriodTablesConfig;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.util.Map;

/**
 * The benchmarks' window into the sink's package-private item rule: the item a reading becomes
 * ({@link ItemBuilder}), and its size by DynamoDB's rules ({@link DynamoDbItemSize}, as the sink counts it). The stock-sink
 * contender builds its items with the same code, so both sinks pay the same for item building.
 */
public final class SinkInternals {

    private final ItemBuilder items;

    public SinkInternals(PeriodTablesConfig config) {
        this.items = new ItemBuilder(config.sharding(), config.ttl().orElse(null));
    }

    /** The item of {@code reading} exactly as {@link PeriodTableSink} writes it. */
    public Map<String, AttributeValue> item(Reading reading) {
        try {
            return items.readingItem(reading);
        } catch (ItemBuilder.UnstorableReadingException e) {
            throw new IllegalArgumentException("reading cannot become an item: " + e.getMessage(), e);
        }
    }

    /** Size of {@code item} by DynamoDB's rules. */
    public static long sizeBytes(Map<String, AttributeValue> item) {
        return DynamoDbItemSize.of(item);
    }
}
