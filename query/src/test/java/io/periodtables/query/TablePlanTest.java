package io.periodtables.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.PeriodLength;
import java.time.Duration;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class TablePlanTest {

    private final PeriodCalendar hourly = new PeriodCalendar(PeriodLength.parse("PT1H"), ZoneOffset.UTC);

    @Test
    void rangeTouchesEveryPeriodItOverlapsAndNotTheOneStartingAtItsEnd() {
        assertThat(TablePlan.periodsOf(
                        hourly, Instant.parse("2026-11-22T10:30:00Z"), Instant.parse("2026-11-22T13:00:00Z")))
                .extracting(Period::label)
                .containsExactly("2026-11-22T1000", "2026-11-22T1100", "2026-11-22T1200");
        assertThat(TablePlan.periodsOf(
                        hourly, Instant.parse("2026-11-22T10:00:00Z"), Instant.parse("2026-11-22T10:00:00.001Z")))
                .extracting(Period::label)
                .containsExactly("2026-11-22T1000");
    }

    @Test
    void dailyTablesInAZoneWithDstFollowItsCalendar() {
        PeriodCalendar berlin = new PeriodCalendar(PeriodLength.DAY, ZoneId.of("Europe/Berlin"));

        assertThat(TablePlan.periodsOf(
                        berlin, Instant.parse("2026-10-24T23:00:00Z"), Instant.parse("2026-10-26T00:00:00Z")))
                .extracting(Period::label)
                .containsExactly("2026-10-25", "2026-10-26");
    }

    @Test
    void lateMonthsRunFromTheRangeStartsMonthToNowPlusMaxFuture() {
        assertThat(TablePlan.lateMonths(
                        Instant.parse("2026-11-01T00:30:00Z"),
                        Duration.ofHours(1),
                        Instant.parse("2027-01-05T00:00:00Z")))
                .containsExactly(YearMonth.of(2026, 11), YearMonth.of(2026, 12), YearMonth.of(2027, 1));
        assertThat(TablePlan.lateMonths(
                        Instant.parse("2026-11-01T00:30:00Z"),
                        Duration.ofHours(1),
                        Instant.parse("2026-11-30T23:30:00Z")))
                .as("a watermark up to max-future ahead of the clock names next month's table")
                .containsExactly(YearMonth.of(2026, 11), YearMonth.of(2026, 12));
        assertThat(TablePlan.lateMonths(
                        Instant.parse("2026-11-03T00:00:00Z"),
                        Duration.ofHours(1),
                        Instant.parse("2026-11-22T00:00:00Z")))
                .containsExactly(YearMonth.of(2026, 11));
    }

    @Test
    void aRangeInTheFutureHasNoLateTables() {
        assertThat(TablePlan.lateMonths(
                        Instant.parse("2027-03-01T00:00:00Z"),
                        Duration.ofHours(1),
                        Instant.parse("2026-11-22T00:00:00Z")))
                .isEmpty();
    }
}
