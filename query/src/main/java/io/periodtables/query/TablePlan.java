package io.periodtables.query;

import io.periodtables.conf.Period;
import io.periodtables.conf.PeriodCalendar;

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
     * The UTC write months whose late tables can hold readings measured at or after
     * {@code from}, oldest first. Late tables are grouped by the month a reading was written,
     * not measured, so the bound comes from the write time: the job rejects readings more
     * than {@code maxFuture} ahead of its wall clock, so a reading measured at {@code t} was
     * written no earlier than {@code t - maxFuture}; and nothing was written after
     * {@code now}. Months from {@code from - maxFuture} to {@code now}, then.
     */
    static List<YearMonth> lateMonths(Instant from, Duration maxFuture, Instant now) {
        YearMonth first = YearMonth.from(from.minus(maxFuture).atZone(ZoneOffset.UTC));
        YearMonth last = YearMonth.from(now.atZone(ZoneOffset.UTC));
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
