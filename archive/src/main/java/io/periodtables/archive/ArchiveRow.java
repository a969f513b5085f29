package io.periodtables.archive;

import io.periodtables.conf.ItemAttributes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.Preconditions;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One archived item: the partition it is filed under ({@code period=<label>} or
 * {@code late=<yyyy-MM>}), the item's key, its {@code ttl} when the table sets one, and its other
 * attributes as the JSON object {@link ItemAttributes#toJson} renders (numbers as written, so the
 * row gives back exactly the item the table stores: {@link #item()}).
 */
@PublicEvolving
public record ArchiveRow(
        String partition, String pk, String sk, @Nullable Long ttl, String attributes) {

    public ArchiveRow {
        Preconditions.checkNotNull(partition, "partition");
        Preconditions.checkNotNull(pk, "pk");
        Preconditions.checkNotNull(sk, "sk");
        Preconditions.checkNotNull(attributes, "attributes");
    }

    /** The row of a stored item ({@code pk}, {@code sk}, optional {@code ttl}, the rest). */
    static ArchiveRow of(String partition, Map<String, AttributeValue> item) {
        Map<String, AttributeValue> rest = new java.util.HashMap<>(item);
        AttributeValue pk = rest.remove(ItemAttributes.PK);
        AttributeValue sk = rest.remove(ItemAttributes.SK);
        AttributeValue ttl = rest.remove(ItemAttributes.TTL);
        return new ArchiveRow(
                partition, pk.s(), sk.s(), ttl == null ? null : Long.valueOf(ttl.n()), ItemAttributes.toJson(rest));
    }

    /** The item as the table holds it. */
    public Map<String, AttributeValue> item() {
        Map<String, AttributeValue> item;
        try {
            item = ItemAttributes.ofJsonObject(attributes);
        } catch (IOException e) {
            throw new UncheckedIOException("archived attributes of " + pk + "/" + sk + " are not a JSON object", e);
        }
        item.put(ItemAttributes.PK, AttributeValue.fromS(pk));
        item.put(ItemAttributes.SK, AttributeValue.fromS(sk));
        if (ttl != null) {
            item.put(ItemAttributes.TTL, AttributeValue.fromN(Long.toString(ttl)));
        }
        return item;
    }
}
