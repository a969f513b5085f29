package io.periodtables.core.item;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class WriteShardingTest {

    private final long t = Instant.parse("2026-11-22T13:45:01.123Z").toEpochMilli();

    @Test
    void sortKeyIsMillisInstantAndEightHexDigits() {
        WriteSharding.ItemKey key = new WriteSharding(1).keyOf("dev-1", t, null, "{\"t\":1}");
        assertThat(key.sk()).matches("2026-11-22T13:45:01\\.123Z#[0-9a-f]{8}");
        assertThat(key.pk()).isEqualTo("dev-1");
        assertThat(new WriteSharding(1)
                        .keyOf("dev-1", Instant.parse("2026-11-22T13:45:01Z").toEpochMilli(), null, "x")
                        .sk())
                .startsWith("2026-11-22T13:45:01.000Z#");
    }

    @Test
    void sameReadingAlwaysGetsTheSameKey() {
        WriteSharding sharding = new WriteSharding(4);
        assertThat(sharding.keyOf("dev-1", t, null, "r")).isEqualTo(sharding.keyOf("dev-1", t, null, "r"));
        assertThat(sharding.keyOf("dev-1", t, "evt-9", "a")).isEqualTo(sharding.keyOf("dev-1", t, "evt-9", "b"));
    }

    @Test
    void twoReadingsInTheSameMillisecondGetTwoKeys() {
        WriteSharding sharding = new WriteSharding(1);
        assertThat(sharding.keyOf("dev-1", t, null, "{\"temp\":1}").sk())
                .isNotEqualTo(sharding.keyOf("dev-1", t, null, "{\"temp\":2}").sk());
    }

    @Test
    void shardSuffixIsInRangeAndSpreadsAcrossAllShards() {
        WriteSharding sharding = new WriteSharding(4);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            WriteSharding.ItemKey key = sharding.keyOf("dev-1", t + i, null, "r" + i);
            assertThat(key.shard()).isBetween(0, 3);
            assertThat(key.pk()).isEqualTo("dev-1#" + key.shard());
            seen.add(key.shard());
        }
        assertThat(seen).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(sharding.partitionKeysOf("d")).containsExactly("d#0", "d#1", "d#2", "d#3");
    }

    @Test
    void sortKeyInstantBoundsSelectExactlyTheHalfOpenRange() {
        String atT = new WriteSharding(1).keyOf("dev-1", t, null, "x").sk();
        String justBefore =
                new WriteSharding(1).keyOf("dev-1", t - 1, null, "x").sk();
        assertThat(atT).startsWith(WriteSharding.sortKeyInstant(t) + "#");
        assertThat(WriteSharding.sortKeyInstant(t)).isGreaterThan(justBefore).isLessThan(atT);
        assertThat(WriteSharding.eventMillisOf(atT)).isEqualTo(t);
    }

    @Test
    void deviceIdLimitLeavesRoomForTheShardSuffix() {
        assertThat(new WriteSharding(1).maxDeviceIdBytes()).isEqualTo(2048);
        assertThat(new WriteSharding(4).maxDeviceIdBytes()).isEqualTo(2046);
        assertThat(new WriteSharding(100).maxDeviceIdBytes()).isEqualTo(2045);
    }

    @Test
    void keysFollowTheRuleAsWrittenForAnyInstantAndIdentity() {
        Random random = new Random(18);
        long[] edges = {
            0,
            -1,
            1,
            999,
            1000,
            -86_400_000L,
            951_782_400_000L,
            253_402_300_799_999L,
            Instant.parse("0000-01-01T00:00:00Z").toEpochMilli(),
            Instant.parse("-0001-12-31T23:59:59.999Z").toEpochMilli(),
            Instant.parse("+10000-01-01T00:00:00Z").toEpochMilli()
        };
        for (int i = 0; i < 20_000; i++) {
            long millis = i < edges.length ? edges[i] : random.nextLong(-70_000_000_000_000L, 300_000_000_000_000L);
            String eventId =
                    random.nextBoolean() ? null : "evt-" + random.nextInt() + (random.nextBoolean() ? "é€😀" : "");
            String canonical = "{\"t\":" + random.nextInt() + "}";
            int shards = 1 + random.nextInt(100);
            assertThat(new WriteSharding(shards).keyOf("dev-" + i, millis, eventId, canonical))
                    .isEqualTo(keyAsWritten(shards, "dev-" + i, millis, eventId, canonical));
        }
    }

    /** The rule of the class comment, spelled out with a formatter, string concatenation and one CRC per text. */
    private static WriteSharding.ItemKey keyAsWritten(
            int shards, String device, long millis, String eventId, String canonical) {
        String instant = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
                .withZone(ZoneOffset.UTC)
                .format(Instant.ofEpochMilli(millis));
        String sk = instant + '#' + String.format("%08x", crc32c(eventId != null ? "e:" + eventId : "r:" + canonical));
        int shard = (int) (crc32c(sk) % shards);
        return new WriteSharding.ItemKey(shards == 1 ? device : device + '#' + shard, sk, shard);
    }

    private static long crc32c(String text) {
        CRC32C crc = new CRC32C();
        crc.update(text.getBytes(StandardCharsets.UTF_8));
        return crc.getValue();
    }
}
