package io.periodtables.core.item;

import io.periodtables.model.Reading;
import io.periodtables.model.RejectReason;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.annotation.PublicEvolving;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The item a reading becomes, exactly as the period-table sink writes it (DESIGN.md "Items in
 * period and late tables"), for code that writes or compares the same items without the sink:
 * another writer, a benchmark's contender, a check.
 */
@PublicEvolving
public final class ReadingItems {

    private static final long WRITE_UNIT_BYTES = 1024;

    private final ItemBuilder items;
    /** The key attributes as a payload would name them: {@code "pk"}, {@code "sk"} and, with a ttl, {@code "ttl"}. */
    private final List<String> quotedKeyAttributes;
    /** The most the key attributes and the ttl attribute add to an item, the device id aside. */
    private final long fixedBytes;

    public ReadingItems(ItemSettings config) {
        this.items = new ItemBuilder(config.sharding(), config.ttl().orElse(null));
        boolean ttl = config.ttl().isPresent();
        this.quotedKeyAttributes = (ttl
                        ? List.of(ItemAttributes.PK, ItemAttributes.SK, ItemAttributes.TTL)
                        : List.of(ItemAttributes.PK, ItemAttributes.SK))
                .stream().map(name -> '"' + name + '"').toList();
        // pk = device id and shard suffix, sk of WriteSharding, ttl = a number of at most 20 digits (12 bytes)
        this.fixedBytes = ItemAttributes.PK.length()
                + config.sharding().maxShardSuffixBytes()
                + ItemAttributes.SK.length()
                + WriteSharding.SORT_KEY_LENGTH
                + (ttl ? ItemAttributes.TTL.length() + 12 : 0);
    }

    /**
     * The write units of the item of {@code reading} (one per started KB of {@link DynamoDbItemSize}),
     * or 0 when the sink would reject it. A reading whose item is bound to stay under 1 KB counts 1
     * without building the item: a payload attribute costs DynamoDB at most twice its JSON text in
     * bytes (a string its UTF-8 bytes, a number one byte per two digits plus two, true, false and
     * null one byte, each map or list element one byte paid by its comma or colon, a map or list
     * three bytes paid by its brackets), and a char is at most three UTF-8 bytes. The bound holds
     * for the canonical payloads {@link Reading} promises; one naming a key attribute is sized exactly.
     */
    public long writeUnits(Reading reading) {
        long bound = fixedBytes
                + 3L * reading.deviceId().length()
                + 6L * reading.payloadJson().length();
        if (bound <= WRITE_UNIT_BYTES && !namesKeyAttribute(reading.payloadJson())) {
            return 1;
        }
        try {
            return (DynamoDbItemSize.of(item(reading)) + WRITE_UNIT_BYTES - 1) / WRITE_UNIT_BYTES;
        } catch (IllegalArgumentException rejected) {
            return 0;
        }
    }

    private boolean namesKeyAttribute(String payload) {
        for (String name : quotedKeyAttributes) {
            if (payload.contains(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Why the sink would refuse the item of {@code reading} (over DynamoDB's 400 KB with its key
     * and ttl, or a payload the item cannot hold), or empty when it stores it; as cheap as
     * {@link #writeUnits} for small readings. The job asks before the period windows, so a reading
     * the sink would refuse is in no rollup, latest item or archive row.
     */
    public Optional<Refusal> refusal(Reading reading) {
        if (writeUnits(reading) > 0) {
            return Optional.empty();
        }
        Map<String, AttributeValue> item;
        try {
            item = items.readingItem(reading);
        } catch (ItemBuilder.UnstorableReadingException e) {
            return Optional.of(new Refusal(e.reason(), e.getMessage()));
        }
        long size = DynamoDbItemSize.of(item);
        return size > DynamoDbItemSize.MAX_ITEM_BYTES
                ? Optional.of(new Refusal(
                        RejectReason.ITEM_TOO_LARGE,
                        "item of " + size + " bytes exceeds DynamoDB's limit of " + DynamoDbItemSize.MAX_ITEM_BYTES
                                + " bytes"))
                : Optional.empty();
    }

    /** A reason the sink would refuse a reading's item, with its message. */
    public record Refusal(RejectReason reason, String message) {}

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
