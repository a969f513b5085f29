package io.periodtables.sink;

import java.io.Serializable;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.flink.util.Preconditions;

/**
 * Exponential backoff with jitter for entries that failed: after {@code n} failed attempts the
 * delay is drawn from {@code [c/2, c]} with {@code c = min(max, initial * 2^(n-1))}. The jitter
 * keeps the subtasks that were throttled together from coming back together.
 */
final class RetryBackoff implements Serializable {
    private static final long serialVersionUID = 1L;

    private final long initialMillis;
    private final long maxMillis;

    RetryBackoff(Duration initial, Duration max) {
        Preconditions.checkArgument(
                !initial.isNegative() && !initial.isZero(),
                "retry backoff initial delay must be positive, was %s",
                initial);
        Preconditions.checkArgument(
                max.compareTo(initial) >= 0,
                "retry backoff max delay %s must be >= the initial delay %s",
                max,
                initial);
        this.initialMillis = initial.toMillis();
        this.maxMillis = max.toMillis();
    }

    long delayMillis(int failedAttempts) {
        if (failedAttempts <= 0) {
            return 0;
        }
        int doublings = Math.min(failedAttempts - 1, 30);
        long ceiling = Math.min(maxMillis, initialMillis << doublings);
        long floor = ceiling / 2;
        return floor + ThreadLocalRandom.current().nextLong(ceiling - floor + 1);
    }
}
