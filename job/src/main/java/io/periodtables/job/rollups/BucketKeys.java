package io.periodtables.job.rollups;

import java.time.Duration;
import java.util.List;

/**
 * The key of a rollup bucket in {@link RollupBuckets#BUCKETS} and {@link RollupBuckets#REFINED}:
 * its start in milliseconds times {@link #GRAIN_SECONDS} plus its grain's length in seconds (at
 * most a day's). The key names the grain by its length, not its place in {@code rollups.every},
 * so a restore with other grains reads it right. A savepoint holds these keys: the layout is
 * the state's.
 */
final class BucketKeys {
    static final long GRAIN_SECONDS = 100_000;

    private BucketKeys() {}

    static long key(long bucketStart, Duration grain) {
        return bucketStart * GRAIN_SECONDS + grain.getSeconds();
    }

    static long startOf(long key) {
        return Math.floorDiv(key, GRAIN_SECONDS);
    }

    /** The grain of {@code key} among {@code grains}, or null when it is none of them. */
    static Duration grainOf(long key, List<Duration> grains) {
        long seconds = Math.floorMod(key, GRAIN_SECONDS);
        for (Duration grain : grains) {
            if (grain.getSeconds() == seconds) {
                return grain;
            }
        }
        return null;
    }
}
