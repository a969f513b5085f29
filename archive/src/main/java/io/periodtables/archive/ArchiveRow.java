package io.periodtables.archive;

import io.periodtables.core.item.ItemAttributes;
import io.periodtables.model.Reading;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.Preconditions;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One archived item: the partition it is filed under ({@code period=<label>} or
 * {@code late=<yyyy-MM>}), the reading's device, event time and {@code eventId}, the item's key,
 * its {@code ttl} when the table sets one, and its other attributes as the JSON object
 * {@link ItemAttributes#toJson} renders, so the row gives back exactly the item the table stores
 * ({@link #item()}). How the attributes are split into typed columns is the file's business
 * ({@link ArchiveParquet}); a row read back always holds all of them here.
 *
 * @param device the reading's device; null for a row of a format 1 file, which had no such column
 */
@PublicEvolving
public record ArchiveRow(
        String partition,
        @Nullable String device,
        long eventMillis,
        @Nullable String eventId,
        String pk,
        String sk,
        @Nullable Long ttl,
        String attributes) {

    public ArchiveRow {
        Preconditions.checkNotNull(partition, "partition");
        Preconditions.checkNotNull(pk, "pk");
        Preconditions.checkNotNull(sk, "sk");
        Preconditions.checkNotNull(attributes, "attributes");
    }

    /** The row of {@code reading}, stored as {@code item} ({@code pk}, {@code sk}, optional {@code ttl}, the rest). */
    static ArchiveRow of(String partition, Reading reading, Map<String, AttributeValue> item) {
        Map<String, AttributeValue> rest = new HashMap<>(item);
        AttributeValue pk = rest.remove(ItemAttributes.PK);
        AttributeValue sk = rest.remove(ItemAttributes.SK);
        AttributeValue ttl = rest.remove(ItemAttributes.TTL);
        return new ArchiveRow(
                partition,
                reading.deviceId(),
                reading.eventMillis(),
                reading.eventId(),
                pk.s(),
                sk.s(),
                ttl == null ? null : Long.valueOf(ttl.n()),
                ItemAttributes.toJson(rest));
    }

    /** The event time of a sort key ({@code <instant>#<hex>}), for rows of files without the column. */
    static long eventMillisOf(String sk) {
        int hash = sk.indexOf('#');
        return Instant.parse(hash < 0 ? sk : sk.substring(0, hash)).toEpochMilli();
    }

    /** The attributes other than the key and {@code ttl}, as the table holds them. */
    public Map<String, AttributeValue> otherAttributes() {
        try {
            return ItemAttributes.ofJsonObject(attributes);
        } catch (IOException e) {
            throw new UncheckedIOException("archived attributes of " + pk + "/" + sk + " are not a JSON object", e);
        }
    }

    /** The item as the table holds it. */
    public Map<String, AttributeValue> item() {
        Map<String, AttributeValue> item = otherAttributes();
        item.put(ItemAttributes.PK, AttributeValue.fromS(pk));
        item.put(ItemAttributes.SK, AttributeValue.fromS(sk));
        if (ttl != null) {
            item.put(ItemAttributes.TTL, AttributeValue.fromN(Long.toString(ttl)));
        }
        return item;
    }
}
