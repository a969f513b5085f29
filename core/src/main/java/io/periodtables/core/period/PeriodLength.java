package io.periodtables.core.period;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The length of one period table: a whole number of minutes that divides a day (aligned to
 * local midnight), or one calendar day, ISO week (Monday) or month.
 *
 * <p>Parsed from the ISO-8601 text of {@code tables.period}: {@code PT15M}, {@code PT1H},
 * {@code P1D}, {@code P1W}, {@code P1M}.
 */
@PublicEvolving
public final class PeriodLength implements Serializable {
    private static final long serialVersionUID = 1L;

    /** How a period is laid onto the calendar. */
    public enum Kind {
        /** A fixed number of minutes dividing the local day. */
        SUB_DAY,
        DAY,
        WEEK,
        MONTH
    }

    private static final long MINUTES_PER_DAY = 24 * 60;

    private final Kind kind;
    private final long minutes;
    private final String text;

    private PeriodLength(Kind kind, long minutes, String text) {
        this.kind = kind;
        this.minutes = minutes;
        this.text = text;
    }

    public static final PeriodLength DAY = new PeriodLength(Kind.DAY, MINUTES_PER_DAY, "P1D");
    public static final PeriodLength WEEK = new PeriodLength(Kind.WEEK, 7 * MINUTES_PER_DAY, "P1W");
    public static final PeriodLength MONTH = new PeriodLength(Kind.MONTH, 28 * MINUTES_PER_DAY, "P1M");

    /**
     * Parses a period; throws {@link IllegalArgumentException} with the accepted forms when the
     * text is not one.
     */
    public static PeriodLength parse(String text) {
        String t = text.trim().toUpperCase(java.util.Locale.ROOT);
        switch (t) {
            case "P1D":
            case "PT24H":
                return DAY;
            case "P1W":
            case "P7D":
                return WEEK;
            case "P1M":
                return MONTH;
            default:
                break;
        }
        Duration d;
        try {
            d = Duration.parse(t);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("expected P1D, P1W, P1M or a duration such as PT1H that divides a day");
        }
        if (d.isNegative() || d.isZero() || d.toSecondsPart() != 0 || d.toNanosPart() != 0) {
            throw new IllegalArgumentException(
                    "expected P1D, P1W, P1M or a whole number of minutes that divides a day (PT15M, PT1H, PT6H)");
        }
        long m = d.toMinutes();
        if (m > MINUTES_PER_DAY || MINUTES_PER_DAY % m != 0) {
            throw new IllegalArgumentException(
                    "a sub-day period must divide 24 hours (PT15M, PT30M, PT1H, PT2H, PT6H, PT12H), or use P1D, P1W,"
                            + " P1M");
        }
        return m == MINUTES_PER_DAY ? DAY : new PeriodLength(Kind.SUB_DAY, m, t);
    }

    public Kind kind() {
        return kind;
    }

    /** Minutes of a sub-day period; the nominal (shortest) length for day, week and month. */
    public long nominalMinutes() {
        return minutes;
    }

    /** The shortest duration a period of this length can have (a month: 28 days). */
    public Duration minimumDuration() {
        return Duration.ofMinutes(minutes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PeriodLength && ((PeriodLength) o).kind == kind && ((PeriodLength) o).minutes == minutes;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, minutes);
    }

    @Override
    public String toString() {
        return text;
    }
}
