package io.periodtables.sink;

import io.periodtables.core.period.EndOfInput;

/**
 * The sink writer's event time, which its entries carry to the table owner's decisions: the
 * watermark the writer has seen, or before the first one (a fresh start) the newest reading it
 * has converted minus {@code watermark.out-of-orderness}, which is what the first watermark will
 * be at most. The end-of-input watermark is ignored: it says nothing about periods. Updated on the
 * writer's thread, read on SDK threads.
 */
final class EventClock {
    private final long outOfOrderness;
    private volatile long watermark = Long.MIN_VALUE;
    private volatile long newestReading = Long.MIN_VALUE;
    private volatile long mark = Long.MIN_VALUE;

    EventClock(long outOfOrderness) {
        this.outOfOrderness = outOfOrderness;
    }

    void watermark(long timestamp) {
        if (timestamp > mark) {
            mark = timestamp;
        }
        if (!EndOfInput.is(timestamp) && timestamp > watermark) {
            watermark = timestamp;
        }
    }

    void reading(long eventMillis) {
        if (eventMillis > newestReading) {
            newestReading = eventMillis;
        }
    }

    /** The last watermark seen, the end of input's included; {@link Long#MIN_VALUE} before the first. */
    long mark() {
        return mark;
    }

    /** Event time in epoch milliseconds, {@link Long#MIN_VALUE} when nothing is known yet. */
    long now() {
        if (watermark != Long.MIN_VALUE) {
            return watermark;
        }
        return newestReading == Long.MIN_VALUE ? Long.MIN_VALUE : newestReading - outOfOrderness;
    }
}
