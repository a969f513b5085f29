package io.periodtables.rotation.lifecycle;

import io.periodtables.core.capacity.Capacity;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * DynamoDB's quota on capacity decreases of one table: 4 in a UTC day at any time, then one more
 * whenever the last was an hour ago, at most 27 a day. The life cycle asks before it lowers a
 * table ({@link #allows}) instead of collecting refusals, and after a refusal waits until
 * {@link #next}: an hour after the last decrease when that is still ahead, the next UTC day when
 * 27 are used up, else the next full UTC hour (plus a little slack for clock skew).
 */
public final class DecreaseQuota {
    static final int FREE_PER_DAY = 4;
    static final int DECREASES_PER_DAY = 27;
    private static final Duration SLACK = Duration.ofSeconds(10);

    private DecreaseQuota() {}

    /** True when DynamoDB will accept a decrease of {@code table} at {@code now}. */
    public static boolean allows(Instant now, ManagedTable table) {
        long today = decreasesToday(now, table);
        if (today < FREE_PER_DAY) {
            return true;
        }
        return today < DECREASES_PER_DAY
                && (table.lastDecrease() == null
                        || !table.lastDecrease().plus(Duration.ofHours(1)).isAfter(now));
    }

    /** When the next decrease of {@code table} will be accepted, seen from {@code now}. */
    public static Instant next(Instant now, ManagedTable table) {
        Instant next = now.truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));
        if (table != null) {
            Instant last = table.lastDecrease();
            if (decreasesToday(now, table) >= DECREASES_PER_DAY) {
                next = LocalDate.ofInstant(now, ZoneOffset.UTC)
                        .plusDays(1)
                        .atStartOfDay(ZoneOffset.UTC)
                        .toInstant();
            } else if (last != null && last.plus(Duration.ofHours(1)).isAfter(now)) {
                next = last.plus(Duration.ofHours(1));
            }
        }
        return next.plus(SLACK);
    }

    /** The count DynamoDB reports, unless the last decrease was on an earlier UTC day. */
    private static long decreasesToday(Instant now, ManagedTable table) {
        Instant last = table.lastDecrease();
        boolean sameDay = last != null
                && LocalDate.ofInstant(last, ZoneOffset.UTC).equals(LocalDate.ofInstant(now, ZoneOffset.UTC));
        return sameDay ? table.decreasesToday() : 0;
    }

    /** A decrease DynamoDB refused because the quota is used up; try again after {@link #waitFor}. */
    public static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final Duration waitFor;

        public Refused(String table, Duration waitFor, Throwable cause) {
            super("DynamoDB's capacity-decrease quota of table " + table + " is used up for " + waitFor, cause);
            this.waitFor = waitFor;
        }

        public Duration waitFor() {
            return waitFor;
        }
    }

    /**
     * True when going from {@code current} to {@code target} lowers a unit, which DynamoDB counts
     * against its decrease quota (a switch to on-demand is limited separately, but also rare).
     */
    public static boolean isDecrease(Capacity current, Capacity target) {
        if (current.onDemand() || target.onDemand()) {
            return target.onDemand() && !current.onDemand();
        }
        return target.writeUnits() < current.writeUnits() || target.readUnits() < current.readUnits();
    }
}
