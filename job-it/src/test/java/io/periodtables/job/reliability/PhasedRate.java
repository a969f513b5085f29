package io.periodtables.job.reliability;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;

/**
 * A source rate in two phases: the first {@code burst} elements as fast as the job takes them
 * (a backlog for the sink), the rest at {@code perSecond} (so the job lives on in wall-clock
 * time while event time moves on). The source asks once per element; it runs at parallelism 1.
 */
final class PhasedRate implements RateLimiterStrategy {
    private static final long serialVersionUID = 1L;

    private final long burst;
    private final double perSecond;

    PhasedRate(long burst, double perSecond) {
        this.burst = burst;
        this.perSecond = perSecond;
    }

    @Override
    public RateLimiter createRateLimiter(int parallelism) {
        long pauseMicros = Math.round(1_000_000 / (perSecond / parallelism));
        return new RateLimiter() {
            private long asked;

            @Override
            public CompletionStage<Void> acquire() {
                if (asked++ < burst) {
                    return CompletableFuture.completedFuture(null);
                }
                return CompletableFuture.runAsync(
                        () -> {}, CompletableFuture.delayedExecutor(pauseMicros, TimeUnit.MICROSECONDS));
            }
        };
    }
}
