package io.periodtables.conf;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class WriteShardingTest {

    private final long t = Instant.parse("2026-11-22T13:45:01.123Z").toEpochMilli();

    @Test
    void sortKeyIsMillisInstantAndEightHexDigits() {
        WriteSharding.ItemKey key = new WriteSharding(1).keyOf("dev-1", t, null, "{\"t\":1}");
        assertThat(key.sk()).matches("2026-11-22T13:45:01\\.123Z#[0-9a-f]{8}");
        assertThat(key.pk()).isEqualTo("dev-1");
        assertThat(new WriteSharding(1).keyOf("dev-1", Instant.parse("2026-11-22T13:45:01Z").toEpochMilli(), null, "x").sk())
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
        String justBefore = new WriteSharding(1).keyOf("dev-1", t - 1, null, "x").sk();
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
}
