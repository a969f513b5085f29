package io.periodtables.core.dynamodb;

import java.io.Serializable;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.flink.util.Preconditions;

/**
 * The one backoff policy of period-tables' retries (the sink's entries, the rotation's control
 * plane calls, the query's reads): exponential with jitter. After {@code n} failed attempts the
 * delay is drawn from {@code [c/2, c]} with {@code c = min(max, initial * 2^(n-1))}; the jitter
 * keeps callers that failed together (subtasks throttled by one table, tables of one reconcile
 * pass) from coming back together.
 */
public final class Backoff implements Serializable {
    private static final long serialVersionUID = 1L;

    private final long initialMillis;
    private final long maxMillis;

    public Backoff(Duration initial, Duration max) {
        Preconditions.checkArgument(
                !initial.isNegative() && !initial.isZero(), "backoff initial delay must be positive, was %s", initial);
        Preconditions.checkArgument(
                max.compareTo(initial) >= 0, "backoff max delay %s must be >= the initial delay %s", max, initial);
        this.initialMillis = initial.toMillis();
        this.maxMillis = max.toMillis();
    }

    /** The delay before the next attempt after {@code failedAttempts} failures; 0 before the first failure. */
    public long delayMillis(int failedAttempts) {
        if (failedAttempts <= 0) {
            return 0;
        }
        int doublings = Math.min(failedAttempts - 1, 30);
        long ceiling = Math.min(maxMillis, initialMillis << doublings);
        long floor = ceiling / 2;
        return floor + ThreadLocalRandom.current().nextLong(ceiling - floor + 1);
    }
}
