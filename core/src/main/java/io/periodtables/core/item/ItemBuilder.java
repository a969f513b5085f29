package io.periodtables.core.item;

import io.periodtables.model.Reading;
import io.periodtables.model.RejectReason;
import io.periodtables.model.Rejection;
import java.io.IOException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Builds the items of DESIGN.md: a reading becomes {@code pk}, {@code sk} (from
 * {@link WriteSharding}), its payload attributes and, when {@code tables.ttl} is set, {@code ttl}
 * (event second + ttl) — nothing that differs between a first write and a replay. A rejection
 * becomes {@code pk = reason}, {@code sk = }{@link Rejection#rawHash()}, {@code reason},
 * {@code raw}, {@code rawBytes}, {@code arrivedAt}, {@code origin}.
 */
public final class ItemBuilder implements Serializable {
    private static final long serialVersionUID = 1L;

    private final WriteSharding sharding;
    private final Long ttlSeconds;

    public ItemBuilder(WriteSharding sharding, Duration ttl) {
        this.sharding = sharding;
        this.ttlSeconds = ttl == null ? null : ttl.getSeconds();
    }

    /** The item of {@code reading}; fails when its payload cannot become one. */
    public Map<String, AttributeValue> readingItem(Reading reading) throws UnstorableReadingException {
        Map<String, AttributeValue> item;
        try {
            item = ItemAttributes.ofJsonObject(reading.payloadJson());
        } catch (IOException e) {
            throw new UnstorableReadingException(
                    RejectReason.INVALID_JSON, "payload is not a JSON object: " + e.getMessage());
        }
        checkNotReserved(item, ItemAttributes.PK);
        checkNotReserved(item, ItemAttributes.SK);
        WriteSharding.ItemKey key = sharding.keyOf(reading);
        item.put(ItemAttributes.PK, AttributeValue.fromS(key.pk()));
        item.put(ItemAttributes.SK, AttributeValue.fromS(key.sk()));
        if (ttlSeconds != null) {
            checkNotReserved(item, ItemAttributes.TTL);
            long expiry = Math.floorDiv(reading.eventMillis(), 1000L) + ttlSeconds;
            item.put(ItemAttributes.TTL, AttributeValue.fromN(Long.toString(expiry)));
        }
        return item;
    }

    private static void checkNotReserved(Map<String, AttributeValue> payload, String name)
            throws UnstorableReadingException {
        if (payload.containsKey(name)) {
            throw new UnstorableReadingException(
                    RejectReason.RESERVED_ATTRIBUTE,
                    "payload field '" + name + "' would overwrite the item's own '" + name + "' attribute");
        }
    }

    /** The item of {@code rejection} in the rejected table. */
    public Map<String, AttributeValue> rejectionItem(Rejection rejection) {
        return Map.of(
                ItemAttributes.PK,
                AttributeValue.fromS(rejection.partitionKey()),
                ItemAttributes.SK,
                AttributeValue.fromS(rejection.rawHash()),
                "reason",
                AttributeValue.fromS(rejection.message()),
                "raw",
                rawValue(rejection.raw()),
                "rawBytes",
                AttributeValue.fromN(Long.toString(rejection.rawBytes())),
                "arrivedAt",
                AttributeValue.fromS(
                        Instant.ofEpochMilli(rejection.arrivedAtMillis()).toString()),
                "origin",
                AttributeValue.fromS(rejection.origin()));
    }

    /** S when the raw bytes are valid UTF-8 (readable in the console), else B. */
    private static AttributeValue rawValue(byte[] raw) {
        try {
            String text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw))
                    .toString();
            return AttributeValue.fromS(text);
        } catch (CharacterCodingException e) {
            return AttributeValue.fromB(SdkBytes.fromByteArray(raw));
        }
    }

    /** A reading that cannot be stored as an item, with the rejection reason code. */
    public static final class UnstorableReadingException extends Exception {
        private static final long serialVersionUID = 1L;

        private final RejectReason reason;

        UnstorableReadingException(RejectReason reason, String message) {
            super(message, null, false, false);
            this.reason = reason;
        }

        public RejectReason reason() {
            return reason;
        }
    }
}
