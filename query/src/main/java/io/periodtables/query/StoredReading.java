package io.periodtables.query;

import io.periodtables.core.dynamodb.LatestTable;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.WriteSharding;
import java.time.Instant;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One reading as a query found it: the device, the event time held by its sort key, the sort
 * key itself (which orders readings and identifies them: the same reading always has the same
 * {@code sk}), the table and shard it was read from ({@link #UNKNOWN_SHARD} for a reading from
 * the latest table, which keeps the table but not the shard), its payload attributes as stored,
 * and its {@code ttl} (epoch seconds) when the item has one.
 */
@PublicEvolving
public record StoredReading(
        String deviceId,
        Instant eventTime,
        String sk,
        String table,
        int shard,
        Map<String, AttributeValue> payload,
        @Nullable Long ttl) {

    /** The shard of a reading read from the latest table ({@code LatestTable}): it is not kept there. */
    public static final int UNKNOWN_SHARD = -1;

    public StoredReading {
        payload = Collections.unmodifiableMap(new HashMap<>(payload));
    }

    /**
     * The reading of one item of a period or late table. {@code ttlAttribute} says whether the
     * table's items carry {@code ttl} (when {@code tables.ttl} is set); otherwise an attribute
     * of that name is payload.
     */
    public static StoredReading of(
            String deviceId, String table, int shard, Map<String, AttributeValue> item, boolean ttlAttribute) {
        Map<String, AttributeValue> payload = new HashMap<>(item);
        String sk = payload.remove(ItemAttributes.SK).s();
        payload.remove(ItemAttributes.PK);
        Long ttl = null;
        if (ttlAttribute
                && payload.containsKey(ItemAttributes.TTL)
                && payload.get(ItemAttributes.TTL).n() != null) {
            ttl = Long.parseLong(payload.remove(ItemAttributes.TTL).n());
        }
        return new StoredReading(
                deviceId, Instant.ofEpochMilli(WriteSharding.eventMillisOf(sk)), sk, table, shard, payload, ttl);
    }

    /** The newest reading of a device as the latest table holds it (no shard, no {@code ttl}). */
    public static StoredReading of(LatestTable.Latest latest) {
        return new StoredReading(
                latest.device(),
                Instant.ofEpochMilli(WriteSharding.eventMillisOf(latest.sortKey())),
                latest.sortKey(),
                latest.table(),
                UNKNOWN_SHARD,
                latest.reading(),
                null);
    }

    /** Whether the shard is known: not for a reading from the latest table. */
    public boolean hasShard() {
        return shard != UNKNOWN_SHARD;
    }

    /** The payload as a JSON object text (keys sorted): N as number, S as string, M, L, BOOL, NULL, B as base64. */
    public String payloadJson() {
        return ItemAttributes.toJson(payload);
    }
}
