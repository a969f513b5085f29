package io.periodtables.model;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInfo;
import org.apache.flink.util.Preconditions;

/**
 * Input that cannot be stored as a reading, on its way to the rejected table: the reason code
 * ({@code invalid-json}, {@code missing-device}, {@code bad-timestamp}, {@code too-far-future},
 * {@code item-too-large}, {@code dynamodb-validation}, ...), a human-readable message, the raw
 * record (at most {@link #MAX_RAW_BYTES}; {@link #of} truncates), its original size, when it was
 * first seen and where it came from (e.g. Kinesis shard and sequence number).
 *
 * <p>Its item key is {@code pk = }{@link #partitionKey()} ({@code <reason>#<k>}), {@code sk = }
 * {@link #rawHash()}, so a replay rewrites the same item. Serialized by the explicit, versioned {@link
 * RejectionSerializer}.
 */
@PublicEvolving
@TypeInfo(RejectionSerializer.TypeFactory.class)
public record Rejection(
        RejectReason reason, String message, byte[] raw, long rawBytes, long arrivedAtMillis, String origin) {
    private static final JsonFactory READING_JSON = new JsonFactory();

    /** DESIGN.md: the rejected table keeps at most 64 KB of the raw record. */
    public static final int MAX_RAW_BYTES = 64 * 1024;

    /** Messages are cut to this many characters; they are for humans, not for storage. */
    public static final int MAX_MESSAGE_CHARS = 4096;

    /**
     * Partition keys per reason code in the rejected table. A flood of bad input is mostly one
     * reason; DynamoDB gives one partition key at most 1,000 WCU/s, so 16 keys let one reason take
     * 16,000 WCU/s (the on-demand rejected table serves a new table 4,000 at first), while reading
     * a reason back costs 16 queries. Part of the stored item key: never change it.
     */
    public static final int KEY_SPREAD = 16;

    public Rejection {
        Preconditions.checkNotNull(reason, "reason");
        Preconditions.checkNotNull(message, "message");
        Preconditions.checkNotNull(raw, "raw");
        Preconditions.checkArgument(
                raw.length <= MAX_RAW_BYTES,
                "raw must be truncated to %s bytes, was %s (use Rejection.of)",
                MAX_RAW_BYTES,
                raw.length);
        Preconditions.checkNotNull(origin, "origin");
    }

    /**
     * A rejection of {@code raw}, keeping at most {@link #MAX_RAW_BYTES} of it (cut back to a
     * UTF-8 character boundary, so valid text stays valid text) and its original size.
     */
    public static Rejection of(RejectReason reason, String message, byte[] raw, long arrivedAtMillis, String origin) {
        String shortMessage = message.length() > MAX_MESSAGE_CHARS ? message.substring(0, MAX_MESSAGE_CHARS) : message;
        return new Rejection(reason, shortMessage, truncate(raw), raw.length, arrivedAtMillis, origin);
    }

    /** Same as {@link #of(String, String, byte[], long, String)} for raw text, stored as UTF-8. */
    public static Rejection of(RejectReason reason, String message, String raw, long arrivedAtMillis, String origin) {
        return of(reason, message, raw.getBytes(StandardCharsets.UTF_8), arrivedAtMillis, origin);
    }

    /**
     * A reading as the raw text of its rejection, when the job refuses it after parsing: device,
     * instant, eventId and payload ({@code payloadIsJson} false: the payload as a JSON string).
     */
    public static String readingText(Reading reading, boolean payloadIsJson) {
        StringWriter text = new StringWriter();
        try (JsonGenerator json = READING_JSON.createGenerator(text)) {
            json.writeStartObject();
            json.writeStringField("deviceId", reading.deviceId());
            json.writeStringField(
                    "timestamp", Instant.ofEpochMilli(reading.eventMillis()).toString());
            if (reading.eventId() != null) {
                json.writeStringField("eventId", reading.eventId());
            }
            json.writeFieldName("payload");
            if (payloadIsJson) {
                json.writeRawValue(reading.payloadJson());
            } else {
                json.writeString(reading.payloadJson());
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("cannot render reading as JSON", e);
        }
        return text.toString();
    }

    /**
     * The partition key of this rejection's item: {@code <reason code>#<k>}, {@code k} in
     * {@code [0, KEY_SPREAD)} the {@link #rawHash()} (uniform: a SHA-256 prefix) modulo
     * {@link #KEY_SPREAD}. The one place this rule is written.
     */
    public String partitionKey() {
        return partitionKey(reason, rawHash());
    }

    /** {@link #partitionKey()} of a rejection of {@code reason} whose sort key is {@code rawHash}. */
    public static String partitionKey(RejectReason reason, String rawHash) {
        return reason.code() + "#" + Long.remainderUnsigned(Long.parseUnsignedLong(rawHash, 16), KEY_SPREAD);
    }

    /**
     * The sort key of this rejection's item: the first 16 hex digits of the SHA-256 of the
     * (truncated) raw bytes. The one place this rule is written.
     */
    public String rawHash() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(raw);
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    private static byte[] truncate(byte[] raw) {
        if (raw.length <= MAX_RAW_BYTES) {
            return raw;
        }
        int end = MAX_RAW_BYTES;
        // Step back over UTF-8 continuation bytes (10xxxxxx) so no character is cut in half.
        for (int back = 0; back < 3 && (raw[end] & 0xC0) == 0x80; back++) {
            end--;
        }
        return Arrays.copyOf(raw, end);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Rejection r
                && reason.equals(r.reason)
                && message.equals(r.message)
                && Arrays.equals(raw, r.raw)
                && rawBytes == r.rawBytes
                && arrivedAtMillis == r.arrivedAtMillis
                && origin.equals(r.origin);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * reason.code().hashCode() + Arrays.hashCode(raw)) + Long.hashCode(arrivedAtMillis);
    }

    @Override
    public String toString() {
        return "Rejection[" + reason + ": " + message + ", " + rawBytes + " raw bytes from " + origin + "]";
    }
}
