package io.periodtables.job.input;

import java.time.Instant;

/** Bounds of the instants period-tables can name a table for: the years 0001 to 9999 (UTC). */
public final class Instants {
    static final long MIN_MILLIS = Instant.parse("0001-01-01T00:00:00Z").toEpochMilli();
    static final long MAX_MILLIS = Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli();

    private Instants() {}
}
