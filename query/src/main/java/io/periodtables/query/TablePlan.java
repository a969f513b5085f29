package io.periodtables.query;

import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import java.time.Duration;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/** Which tables can hold a device's readings of a time range. */
final class TablePlan {

    private TablePlan() {}

    /** Every period that overlaps {@code [from, to)}, oldest first. */
    static List<Period> periodsOf(PeriodCalendar calendar, Instant from, Instant to) {
        List<Period> periods = new ArrayList<>();
        for (Period p = calendar.periodOf(from); p.start().isBefore(to); p = calendar.next(p)) {
            periods.add(p);
        }
        return periods;
    }

    /**
     * The UTC months whose late tables can hold readings measured at or after {@code from},
     * oldest first. A late table is named for the month of the event-time watermark that made
     * its readings late, and that watermark had passed the reading's own time, so no reading
     * measured at {@code t} is in a late table of a month before {@code t}'s. The watermark
     * never passes the newest reading accepted, which is at most {@code maxFuture} ahead of the
     * wall clock. Months from {@code from} to {@code now + maxFuture}, then.
     */
    static List<YearMonth> lateMonths(Instant from, Duration maxFuture, Instant now) {
        YearMonth first = YearMonth.from(from.atZone(ZoneOffset.UTC));
        YearMonth last = YearMonth.from(now.plus(maxFuture).atZone(ZoneOffset.UTC));
        List<YearMonth> months = new ArrayList<>();
        for (YearMonth m = first; !m.isAfter(last); m = m.plusMonths(1)) {
            months.add(m);
        }
        return months;
    }

    /** An instant inside the UTC month {@code month}, for {@code TableNaming.lateTable}. */
    static Instant inMonth(YearMonth month) {
        return month.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
    }
}
