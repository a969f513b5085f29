package io.periodtables.core.period;

import java.io.Serializable;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.IsoFields;
import java.time.temporal.TemporalAdjusters;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Lays periods of one {@link PeriodLength} onto the calendar of one zone: the period of an
 * instant, the next and previous period, and the label that names its table.
 *
 * <p>Sub-day periods are aligned to local midnight. A period boundary is a local slot start
 * ({@code 00:00}, {@code 01:00}, …) that exists in the zone, resolved with the earlier offset;
 * a period runs from one boundary to the next. So across a DST change every instant still has
 * exactly one period, periods are contiguous and labels never repeat: slots skipped by a
 * spring-forward gap have no period, and the repeated local hour of a fall-back belongs to
 * the period that started before it (that period is longer than usual).
 *
 * <p>Only years 0001–9999 (of the local date, or ISO week-based year for weeks) have labels;
 * anything else is refused with {@link IllegalArgumentException}.
 */
@PublicEvolving
public final class PeriodCalendar implements Serializable {
    private static final long serialVersionUID = 1L;

    private static final DateTimeFormatter SUB_DAY_LABEL = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HHmm");
    private static final DateTimeFormatter DAY_LABEL = DateTimeFormatter.ofPattern("uuuu-MM-dd");
    private static final DateTimeFormatter MONTH_LABEL = DateTimeFormatter.ofPattern("uuuu-MM");
    private static final DateTimeFormatter WEEK_LABEL = new DateTimeFormatterBuilder()
            .appendValue(IsoFields.WEEK_BASED_YEAR, 4)
            .appendLiteral("-W")
            .appendValue(IsoFields.WEEK_OF_WEEK_BASED_YEAR, 2)
            .toFormatter();

    private static final DateTimeFormatter WEEK_PARSER = new DateTimeFormatterBuilder()
            .appendValue(IsoFields.WEEK_BASED_YEAR, 4)
            .appendLiteral("-W")
            .appendValue(IsoFields.WEEK_OF_WEEK_BASED_YEAR, 2)
            .appendLiteral('-')
            .appendValue(java.time.temporal.ChronoField.DAY_OF_WEEK, 1)
            .toFormatter();

    private final PeriodLength length;
    private final ZoneId zone;
    /** The period found last; immutable, so any thread may read whichever one it sees. */
    private transient Period lastPeriod;

    public PeriodCalendar(PeriodLength length, ZoneId zone) {
        this.length = Objects.requireNonNull(length, "length");
        this.zone = Objects.requireNonNull(zone, "zone");
    }

    public PeriodLength length() {
        return length;
    }

    public ZoneId zone() {
        return zone;
    }

    /** The period that contains {@code instant}. */
    public Period periodOf(Instant instant) {
        // The last period answers without the zone arithmetic; it is not replaced here, so callers
        // that look one period ahead or back (next, previous) do not evict the one readings are in.
        Period last = lastPeriod;
        if (last != null && !instant.isBefore(last.start()) && instant.isBefore(last.end())) {
            return last;
        }
        ZonedDateTime local = instant.atZone(zone);
        checkYear(local.getYear(), instant);
        switch (length.kind()) {
            case SUB_DAY:
                return subDayPeriodOf(instant, local.toLocalDateTime());
            case DAY:
                return calendarPeriod(local.toLocalDate(), local.toLocalDate().plusDays(1), DAY_LABEL);
            case WEEK:
                LocalDate monday = local.toLocalDate().with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
                checkYear(monday.get(IsoFields.WEEK_BASED_YEAR), instant);
                return calendarPeriod(monday, monday.plusWeeks(1), WEEK_LABEL);
            case MONTH:
                LocalDate first = local.toLocalDate().withDayOfMonth(1);
                return calendarPeriod(first, first.plusMonths(1), MONTH_LABEL);
            default:
                throw new IllegalStateException("unknown period kind " + length.kind());
        }
    }

    /** The period that contains the given epoch millisecond. */
    public Period periodOf(long epochMillis) {
        // Readings come in runs of one period: most calls are answered by the last period.
        Period last = lastPeriod;
        if (last != null && epochMillis >= last.startMillis() && epochMillis < last.endMillis()) {
            return last;
        }
        Period period = periodOf(Instant.ofEpochMilli(epochMillis));
        lastPeriod = period;
        return period;
    }

    /** The period that starts where {@code period} ends. */
    public Period next(Period period) {
        return periodOf(period.end());
    }

    /** The oldest period {@code watermark} has not closed ({@link Period#closesAt}). */
    public Period oldestOpen(long watermark, Duration allowedLateness) {
        return periodOf(watermark - allowedLateness.toMillis() + 1);
    }

    /** The period that ends where {@code period} starts. */
    public Period previous(Period period) {
        return periodOf(period.start().minusNanos(1));
    }

    /**
     * The period whose label is {@code label}, or empty when no period of this calendar has it
     * (a label of another period length, or a local time skipped by a DST gap).
     */
    public Optional<Period> parseLabel(String label) {
        try {
            LocalDateTime start;
            switch (length.kind()) {
                case SUB_DAY:
                    start = LocalDateTime.parse(label, SUB_DAY_LABEL);
                    break;
                case DAY:
                    start = LocalDate.parse(label, DAY_LABEL).atStartOfDay();
                    break;
                case WEEK:
                    start = LocalDate.parse(label + "-1", WEEK_PARSER).atStartOfDay();
                    break;
                case MONTH:
                    start = YearMonth.parse(label, MONTH_LABEL).atDay(1).atStartOfDay();
                    break;
                default:
                    return Optional.empty();
            }
            if (!exists(start) && length.kind() == PeriodLength.Kind.SUB_DAY) {
                return Optional.empty();
            }
            Period period = periodOf(start.atZone(zone).toInstant());
            return period.label().equals(label) ? Optional.of(period) : Optional.empty();
        } catch (DateTimeParseException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private Period calendarPeriod(LocalDate start, LocalDate end, DateTimeFormatter label) {
        return new Period(
                start.atStartOfDay(zone).toInstant(), end.atStartOfDay(zone).toInstant(), label.format(start));
    }

    private Period subDayPeriodOf(Instant instant, LocalDateTime local) {
        long slotMinutes = length.nominalMinutes();
        long minuteOfDay = local.getHour() * 60L + local.getMinute();
        LocalDateTime slot = local.toLocalDate().atStartOfDay().plusMinutes(minuteOfDay - minuteOfDay % slotMinutes);
        // Step back over slot starts that do not exist or lie after the instant (both only
        // happen around a DST change), then forward to the last boundary not after it.
        while (!exists(slot) || boundary(slot).isAfter(instant)) {
            slot = slot.minusMinutes(slotMinutes);
        }
        LocalDateTime next = nextSlot(slot, slotMinutes);
        while (!boundary(next).isAfter(instant)) {
            slot = next;
            next = nextSlot(slot, slotMinutes);
        }
        return new Period(boundary(slot), boundary(next), SUB_DAY_LABEL.format(slot));
    }

    private LocalDateTime nextSlot(LocalDateTime slot, long slotMinutes) {
        LocalDateTime next = slot.plusMinutes(slotMinutes);
        while (!exists(next)) {
            next = next.plusMinutes(slotMinutes);
        }
        return next;
    }

    private boolean exists(LocalDateTime local) {
        return !zone.getRules().getValidOffsets(local).isEmpty();
    }

    private Instant boundary(LocalDateTime local) {
        // ofLocal with no preferred offset takes the earlier offset in an overlap.
        return ZonedDateTime.ofLocal(local, zone, null).toInstant();
    }

    private static void checkYear(int year, Instant instant) {
        if (year < 1 || year > 9999) {
            throw new IllegalArgumentException(
                    "instant " + instant + " is outside the years 0001-9999 that table names support");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PeriodCalendar
                && ((PeriodCalendar) o).length.equals(length)
                && ((PeriodCalendar) o).zone.equals(zone);
    }

    @Override
    public int hashCode() {
        return Objects.hash(length, zone);
    }

    @Override
    public String toString() {
        return length + " in " + zone;
    }
}
