package io.periodtables.core.item;

import io.periodtables.model.Reading;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.zip.CRC32C;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The item-key rule of period and late tables, the one place it is written down.
 *
 * <ul>
 *   <li>{@code sk = <event instant, UTC, millis>#<8 hex>}, the hex a CRC-32C of the reading's
 *       identity: its {@code eventId} when it has one, else its canonical form (device,
 *       instant, payload). Same reading, same item.
 *   <li>{@code k = crc32c(sk) mod shards}: deterministic, so a replay rewrites the same item.
 *   <li>{@code pk = deviceId} with one shard, else {@code deviceId#k}.
 * </ul>
 */
@PublicEvolving
public final class WriteSharding implements Serializable {
    private static final long serialVersionUID = 1L;

    /** DynamoDB's limit on a partition key value, in UTF-8 bytes. */
    public static final int MAX_PARTITION_KEY_BYTES = 2048;

    /** Length of a sort key of an instant in the years 0000-9999: 24-char instant, {@code '#'}, 8 hex digits. */
    public static final int SORT_KEY_LENGTH = 33;

    private static final DateTimeFormatter SK_INSTANT =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private static final long MILLIS_PER_DAY = 86_400_000L;
    private static final byte[] EVENT_ID_PREFIX = "e:".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CANONICAL_PREFIX = "r:".getBytes(StandardCharsets.US_ASCII);

    private final int shards;

    public WriteSharding(int shards) {
        if (shards < 1 || shards > 100) {
            throw new IllegalArgumentException("shards must be 1-100, was " + shards);
        }
        this.shards = shards;
    }

    public int shards() {
        return shards;
    }

    /** The key of {@code reading}'s item. */
    public ItemKey keyOf(Reading reading) {
        return keyOf(reading.deviceId(), reading.eventMillis(), reading.eventId(), reading.canonical());
    }

    /** The key of a reading whose identity is given by {@code eventId}, or the canonical form when it has none. */
    public ItemKey keyOf(String deviceId, long eventMillis, String eventId, String canonicalReading) {
        String sk = sortKey(eventMillis, eventId, canonicalReading);
        int shard = (int) (crc32c(sk) % shards);
        String pk = shards == 1 ? deviceId : deviceId + '#' + shard;
        return new ItemKey(pk, sk, shard);
    }

    /**
     * The sort key of {@code reading}'s item, whatever the number of shards: what orders a
     * device's readings and tells a resent one in the rollups and the latest table as in the
     * period tables.
     */
    public static String sortKeyOf(Reading reading) {
        return sortKey(reading.eventMillis(), reading.eventId(), reading.canonical());
    }

    private static String sortKey(long eventMillis, String eventId, String canonicalReading) {
        CRC32C identity = new CRC32C();
        identity.update(eventId != null ? EVENT_ID_PREFIX : CANONICAL_PREFIX);
        identity.update((eventId != null ? eventId : canonicalReading).getBytes(StandardCharsets.UTF_8));
        return sortKeyInstant(eventMillis) + '#' + hex8(identity.getValue());
    }

    /**
     * The instant part of the sort keys of readings measured at {@code eventMillis}: each such
     * sort key is this text, {@code '#'} and 8 hex digits. It is not itself a sort key, and it
     * sorts after every sort key of an earlier instant and before every sort key of its own
     * instant, so {@code sk BETWEEN sortKeyInstant(t1) AND sortKeyInstant(t2)} selects exactly
     * the readings of {@code [t1, t2)}.
     */
    public static String sortKeyInstant(long eventMillis) {
        long day = Math.floorDiv(eventMillis, MILLIS_PER_DAY);
        LocalDate date = LocalDate.ofEpochDay(day);
        if (date.getYear() < 0 || date.getYear() > 9999) {
            return SK_INSTANT.format(Instant.ofEpochMilli(eventMillis)); // a sign and more digits
        }
        // What SK_INSTANT writes, without a formatter per reading: it was the sink's costliest step.
        int millisOfDay = (int) Math.floorMod(eventMillis, MILLIS_PER_DAY);
        byte[] text = new byte[24];
        digits(text, 0, date.getYear(), 4);
        text[4] = '-';
        digits(text, 5, date.getMonthValue(), 2);
        text[7] = '-';
        digits(text, 8, date.getDayOfMonth(), 2);
        text[10] = 'T';
        digits(text, 11, millisOfDay / 3_600_000, 2);
        text[13] = ':';
        digits(text, 14, millisOfDay / 60_000 % 60, 2);
        text[16] = ':';
        digits(text, 17, millisOfDay / 1000 % 60, 2);
        text[19] = '.';
        digits(text, 20, millisOfDay % 1000, 3);
        text[23] = 'Z';
        return new String(text, StandardCharsets.US_ASCII);
    }

    private static void digits(byte[] text, int at, int value, int width) {
        for (int i = at + width - 1; i >= at; i--) {
            text[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
    }

    /** The event time a sort key of this rule holds; {@link IllegalArgumentException} for any other text. */
    public static long eventMillisOf(String sk) {
        int hash = sk.indexOf('#');
        try {
            return Instant.parse(hash < 0 ? sk : sk.substring(0, hash)).toEpochMilli();
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException("'" + sk + "' is not a sort key <instant>#<8 hex>", e);
        }
    }

    /** Every partition key a device's readings can have, shard 0 first. */
    public String[] partitionKeysOf(String deviceId) {
        String[] keys = new String[shards];
        for (int k = 0; k < shards; k++) {
            keys[k] = shards == 1 ? deviceId : deviceId + '#' + k;
        }
        return keys;
    }

    /** The longest device id, in UTF-8 bytes, whose sharded partition key DynamoDB accepts. */
    public int maxDeviceIdBytes() {
        return MAX_PARTITION_KEY_BYTES - maxShardSuffixBytes();
    }

    /** The most bytes the shard suffix {@code #k} adds to a device id: 0 with one shard. */
    public int maxShardSuffixBytes() {
        return shards == 1 ? 0 : 1 + String.valueOf(shards - 1).length();
    }

    static long crc32c(String s) {
        CRC32C crc = new CRC32C();
        crc.update(s.getBytes(StandardCharsets.UTF_8));
        return crc.getValue();
    }

    private static String hex8(long value) {
        String hex = Long.toHexString(value);
        return "00000000".substring(hex.length()) + hex;
    }

    /** The key of one item: partition key, sort key and the shard it went to. */
    @PublicEvolving
    public record ItemKey(String pk, String sk, int shard) implements Serializable {}
}
