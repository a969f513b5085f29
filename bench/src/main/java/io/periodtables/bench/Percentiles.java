package io.periodtables.bench;

import java.util.Arrays;
import java.util.Collection;

/**
 * Nearest-rank percentiles of a set of durations in nanoseconds: the p-th percentile is the
 * smallest value that at least p % of the values are less than or equal to, always one of the
 * values (no interpolation), so a p99 of 300 samples is their third largest.
 */
public record Percentiles(int n, long p50, long p90, long p99, long max) {

    public static Percentiles of(Collection<Long> nanos) {
        if (nanos.isEmpty()) {
            return new Percentiles(0, 0, 0, 0, 0);
        }
        long[] sorted = nanos.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(sorted);
        return new Percentiles(
                sorted.length, rank(sorted, 50), rank(sorted, 90), rank(sorted, 99), sorted[sorted.length - 1]);
    }

    /** The value at rank ceil(p / 100 × n), counted from 1. */
    static long rank(long[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(1, rank) - 1];
    }
}
