package io.periodtables.query.plan;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.WriteSharding;
import java.io.IOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The item the sink would store for a sample reading, built with the rules the sink uses
 * ({@link ItemAttributes}, {@link WriteSharding}) and sized by {@link DynamoDbItemSize}, for the
 * plan's {@code --sample}. Where the item depends on things a sample does not fix, it takes the
 * largest: {@code pk} with the longest shard suffix, and {@code ttl} (when {@code tables.ttl} is
 * set) with 10 significant digits, the most an epoch second has until the year 2286. The sort
 * key has the same length at every instant of the years 0001-9999.
 */
public final class SampleItem {

    private static final long SAMPLE_EVENT_MILLIS =
            Instant.parse("2026-11-22T13:45:01.123Z").toEpochMilli();
    private static final AttributeValue LARGEST_TTL = AttributeValue.fromN("1999999999");
    private static final String EVENT_ID = "eventId";
    private static final List<String> RESERVED = List.of(ItemAttributes.PK, ItemAttributes.SK);
    private static final List<String> RESERVED_WITH_TTL =
            List.of(ItemAttributes.PK, ItemAttributes.SK, ItemAttributes.TTL);

    private SampleItem() {}

    /**
     * The size of the largest item among the sample readings (a JSON object, or an array of
     * them), stored with {@code shards} write shards.
     */
    public static long largestBytes(String json, PeriodTablesConfig config, int shards) throws IOException {
        long largest = 0;
        for (Map<String, AttributeValue> reading : ItemAttributes.ofJsonObjects(json)) {
            largest = Math.max(largest, DynamoDbItemSize.of(itemOf(reading, config, shards)));
        }
        if (largest == 0) {
            throw new IOException("expected a JSON reading object (or an array of them), found none");
        }
        return largest;
    }

    /** The item of one sample reading: its payload (all but the device, timestamp and eventId fields) and keys. */
    static Map<String, AttributeValue> itemOf(
            Map<String, AttributeValue> reading, PeriodTablesConfig config, int shards) throws IOException {
        Map<String, AttributeValue> item = new HashMap<>(reading);
        String deviceField = config.get(ConfigKeys.INPUT_DEVICE_FIELD);
        AttributeValue device = item.remove(deviceField);
        if (device == null || device.s() == null) {
            throw new IOException("the sample reading has no string field '" + deviceField + "' (input.device-field)");
        }
        item.remove(config.get(ConfigKeys.INPUT_TIMESTAMP_FIELD));
        AttributeValue eventId = item.remove(EVENT_ID);
        boolean ttl = config.ttl().isPresent();
        for (String reserved : ttl ? RESERVED_WITH_TTL : RESERVED) {
            if (item.containsKey(reserved)) {
                throw new IOException("the sample reading's field '" + reserved
                        + "' is reserved for the item's own attribute; the job rejects such readings");
            }
        }
        WriteSharding sharding = new WriteSharding(shards);
        String[] partitionKeys = sharding.partitionKeysOf(device.s());
        String sk = sharding.keyOf(
                        device.s(),
                        SAMPLE_EVENT_MILLIS,
                        eventId == null ? null : eventId.s(),
                        ItemAttributes.toJson(item))
                .sk();
        item.put(ItemAttributes.PK, AttributeValue.fromS(partitionKeys[partitionKeys.length - 1]));
        item.put(ItemAttributes.SK, AttributeValue.fromS(sk));
        if (ttl) {
            item.put(ItemAttributes.TTL, LARGEST_TTL);
        }
        return item;
    }
}
