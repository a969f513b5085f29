package io.periodtables.core.period;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.Watermark;

/**
 * The watermark that ends the input ({@link Watermark#MAX_WATERMARK}), which Flink sends when a
 * bounded source finishes or a stop drains the job and which fires every event-time timer. It
 * says nothing about time: it closes no period, seals no archive period and moves no event
 * clock, so a run resumed from the savepoint goes on from the input's own last watermark. Every
 * operator asks here, so that rule has one place.
 */
@Internal
public final class EndOfInput {
    private EndOfInput() {}

    /** Whether {@code watermark} is the end of the input rather than a point in event time. */
    public static boolean is(long watermark) {
        return watermark == Watermark.MAX_WATERMARK.getTimestamp();
    }
}
