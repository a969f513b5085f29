package io.periodtables.core.period;

import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.annotation.PublicEvolving;

/**
 * One period: the half-open interval {@code [start, end)} of instants whose readings belong
 * in one table, and the label that names that table. Periods come from {@link PeriodCalendar};
 * equal periods of one calendar have equal labels.
 */
@PublicEvolving
public record Period(Instant start, Instant end, String label) implements Serializable {

    public Period {
        if (!end.isAfter(start)) {
            throw new IllegalArgumentException("period end " + end + " is not after start " + start);
        }
    }

    public long startMillis() {
        return start.toEpochMilli();
    }

    public long endMillis() {
        return end.toEpochMilli();
    }

    public boolean contains(Instant instant) {
        return !instant.isBefore(start) && instant.isBefore(end);
    }

    /**
     * The watermark that closes the period: Flink's window rule, its last millisecond plus
     * {@code window.allowed-lateness}. From that watermark on, a reading of the period is late, the
     * period windows have emitted all of it, and its table may leave the {@code current} tier. The
     * one place this rule is written.
     */
    public long closesAt(Duration allowedLateness) {
        return endMillis() - 1 + allowedLateness.toMillis();
    }

    /** Whether {@code watermark} has closed the period ({@link #closesAt}). */
    public boolean closedBy(long watermark, Duration allowedLateness) {
        return closesAt(allowedLateness) <= watermark;
    }

    /** Whether {@code watermark} has closed the period ({@link #closesAt}). */
    public boolean closedBy(Instant watermark, Duration allowedLateness) {
        return !watermark.isBefore(Instant.ofEpochMilli(closesAt(allowedLateness)));
    }
}
