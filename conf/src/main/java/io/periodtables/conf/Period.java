package io.periodtables.conf;

import java.io.Serializable;
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
}
