package io.periodtables.sink;

import io.periodtables.conf.DynamoDbItemSize;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.model.Reading;

import org.apache.flink.annotation.PublicEvolving;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.util.Map;

/**
 * The item a reading becomes, exactly as {@link PeriodTableSink} writes it (DESIGN.md "Items in
 * period and late tables"), for code that writes or compares the same items without the sink:
 * another writer, a benchmark's contender, a check.
 */
@PublicEvolving
public final class ReadingItems {

    private final ItemBuilder items;

    public ReadingItems(PeriodTablesConfig config) {
        this.items = new ItemBuilder(config.sharding(), config.ttl().orElse(null));
    }

    /** The item of {@code reading}; {@link IllegalArgumentException} when the sink would reject it instead. */
    public Map<String, AttributeValue> item(Reading reading) {
        Map<String, AttributeValue> item;
        try {
            item = items.readingItem(reading);
        } catch (ItemBuilder.UnstorableReadingException e) {
            throw new IllegalArgumentException("reading cannot become an item: " + e.getMessage(), e);
        }
        long size = DynamoDbItemSize.of(item);
        if (size > DynamoDbItemSize.MAX_ITEM_BYTES) {
            throw new IllegalArgumentException("item of " + size + " bytes exceeds DynamoDB's limit");
        }
        return item;
    }
}
