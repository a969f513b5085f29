package io.periodtables.core.period;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Set;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

class PeriodCalendarTest {

    private static PeriodCalendar utc(String period) {
        return new PeriodCalendar(PeriodLength.parse(period), ZoneOffset.UTC);
    }

    @Test
    void hourlyPeriodContainsInstantAndIsLabelledByItsStart() {
        Period p = utc("PT1H").periodOf(Instant.parse("2026-11-22T13:45:01.123Z"));
        assertThat(p.start()).isEqualTo(Instant.parse("2026-11-22T13:00:00Z"));
        assertThat(p.end()).isEqualTo(Instant.parse("2026-11-22T14:00:00Z"));
        assertThat(p.label()).isEqualTo("2026-11-22T1300");
    }

    @Test
    void theLastPeriodFoundAnswersInstantsInsideItAndNoOthers() {
        PeriodCalendar cal = new PeriodCalendar(PeriodLength.parse("PT1H"), ZoneId.of("Europe/Berlin"));
        Period thirteen = cal.periodOf(Instant.parse("2026-11-22T13:45:00Z").toEpochMilli()); // remembered
        Period fresh = utc("PT1H").periodOf(Instant.parse("2026-11-22T13:45:00Z"));

        assertThat(cal.periodOf(thirteen.start())).isSameAs(thirteen);
        assertThat(cal.periodOf(thirteen.end().minusNanos(1))).isSameAs(thirteen);
        assertThat(cal.periodOf(thirteen.end())).isEqualTo(cal.next(thirteen)).isNotEqualTo(thirteen);
        assertThat(cal.periodOf(thirteen.start().minusNanos(1)).end()).isEqualTo(thirteen.start());
        assertThat(cal.previous(thirteen).end()).isEqualTo(thirteen.start());
        // looking ahead and back keeps the remembered period
        assertThat(cal.periodOf(thirteen.start().plusSeconds(1))).isSameAs(thirteen);
        assertThat(thirteen.label()).isEqualTo("2026-11-22T1400"); // Berlin's 14:00 is 13:00 UTC
        assertThat(fresh.start()).isEqualTo(thirteen.start());
    }

    @Test
    void quarterHourPeriodsAreContiguous() {
        PeriodCalendar cal = utc("PT15M");
        Period p = cal.periodOf(Instant.parse("2026-11-22T23:59:59.999Z"));
        assertThat(p.label()).isEqualTo("2026-11-22T2345");
        Period next = cal.next(p);
        assertThat(next.start()).isEqualTo(p.end());
        assertThat(next.label()).isEqualTo("2026-11-23T0000");
        assertThat(cal.previous(next)).isEqualTo(p);
    }

    @Test
    void periodStartIsInclusiveAndEndExclusive() {
        PeriodCalendar cal = utc("PT1H");
        assertThat(cal.periodOf(Instant.parse("2026-11-22T14:00:00Z")).label()).isEqualTo("2026-11-22T1400");
        assertThat(cal.periodOf(Instant.parse("2026-11-22T13:59:59.999Z")).label())
                .isEqualTo("2026-11-22T1300");
    }

    @Test
    void dailyPeriod() {
        Period p = utc("P1D").periodOf(Instant.parse("2026-11-22T23:59:59Z"));
        assertThat(p.label()).isEqualTo("2026-11-22");
        assertThat(Duration.between(p.start(), p.end())).isEqualTo(Duration.ofDays(1));
    }

    @Test
    void isoWeekAcrossYearBoundaryBelongsToWeekBasedYear() {
        PeriodCalendar cal = utc("P1W");
        // 2026-12-31 is a Thursday: ISO week 2026-W53 runs Mon 2026-12-28 .. Sun 2027-01-03.
        Period p = cal.periodOf(Instant.parse("2027-01-02T10:00:00Z"));
        assertThat(p.label()).isEqualTo("2026-W53");
        assertThat(p.start()).isEqualTo(Instant.parse("2026-12-28T00:00:00Z"));
        assertThat(cal.next(p).label()).isEqualTo("2027-W01");
        // 2024-12-30 (Monday) starts 2025-W01.
        assertThat(cal.periodOf(Instant.parse("2024-12-31T00:00:00Z")).label()).isEqualTo("2025-W01");
    }

    @Test
    void monthlyPeriodHasCalendarLength() {
        PeriodCalendar cal = utc("P1M");
        Period feb = cal.periodOf(Instant.parse("2028-02-29T12:00:00Z"));
        assertThat(feb.label()).isEqualTo("2028-02");
        assertThat(Duration.between(feb.start(), feb.end())).isEqualTo(Duration.ofDays(29));
        assertThat(cal.next(feb).label()).isEqualTo("2028-03");
    }

    @Test
    void hourlyPeriodsInBerlinAcrossFallBackAreContiguousWithUniqueLabels() {
        PeriodCalendar cal = new PeriodCalendar(PeriodLength.parse("PT1H"), ZoneId.of("Europe/Berlin"));
        // 2026-10-25 03:00 CEST -> 02:00 CET: local 02:00-03:00 happens twice.
        assertContiguousAndUnique(cal, Instant.parse("2026-10-24T20:00:00Z"), Instant.parse("2026-10-25T06:00:00Z"));
        Period repeated = cal.periodOf(Instant.parse("2026-10-25T01:30:00Z")); // 02:30 CET, second time
        assertThat(repeated.label()).isEqualTo("2026-10-25T0200");
        assertThat(repeated.start()).isEqualTo(Instant.parse("2026-10-25T00:00:00Z"));
        assertThat(Duration.between(repeated.start(), repeated.end())).isEqualTo(Duration.ofHours(2));
    }

    @Test
    void quarterHourPeriodsInBerlinAcrossSpringForwardSkipTheGap() {
        PeriodCalendar cal = new PeriodCalendar(PeriodLength.parse("PT15M"), ZoneId.of("Europe/Berlin"));
        // 2026-03-29 02:00 CET -> 03:00 CEST: local 02:00-03:00 does not exist.
        Set<String> labels = assertContiguousAndUnique(
                cal, Instant.parse("2026-03-28T23:00:00Z"), Instant.parse("2026-03-29T03:00:00Z"));
        assertThat(labels).contains("2026-03-29T0145", "2026-03-29T0300").doesNotContain("2026-03-29T0200");
        assertThat(cal.periodOf(Instant.parse("2026-03-29T01:00:00Z")).label()).isEqualTo("2026-03-29T0300");
    }

    @Test
    void dailyPeriodInNewYorkFollowsLocalMidnight() {
        PeriodCalendar cal = new PeriodCalendar(PeriodLength.DAY, ZoneId.of("America/New_York"));
        Period p = cal.periodOf(Instant.parse("2026-11-01T12:00:00Z")); // DST ends that day: 25 hours
        assertThat(p.label()).isEqualTo("2026-11-01");
        assertThat(p.start()).isEqualTo(Instant.parse("2026-11-01T04:00:00Z"));
        assertThat(Duration.between(p.start(), p.end())).isEqualTo(Duration.ofHours(25));
    }

    @Test
    void jvmDefaultZoneDoesNotLeakIntoLabels() {
        TimeZone before = TimeZone.getDefault();
        try {
            TimeZone.setDefault(TimeZone.getTimeZone("Asia/Kolkata"));
            assertThat(utc("PT1H")
                            .periodOf(Instant.parse("2026-11-22T23:30:00Z"))
                            .label())
                    .isEqualTo("2026-11-22T2300");
            assertThat(utc("P1D")
                            .periodOf(Instant.parse("2026-11-22T23:30:00Z"))
                            .label())
                    .isEqualTo("2026-11-22");
        } finally {
            TimeZone.setDefault(before);
        }
    }

    @Test
    void yearsOutsideFourDigitsAreRefused() {
        PeriodCalendar cal = utc("P1D");
        assertThatThrownBy(() -> cal.periodOf(Instant.parse("+10000-01-01T00:00:00Z")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0001-9999");
        assertThatThrownBy(() -> cal.periodOf(Instant.parse("0000-12-31T00:00:00Z")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(cal.periodOf(Instant.parse("9999-12-31T23:59:59Z")).label()).isEqualTo("9999-12-31");
        assertThat(cal.periodOf(Instant.parse("0001-01-01T00:00:00Z")).label()).isEqualTo("0001-01-01");
    }

    @Test
    void labelsParseBackToTheirPeriod() {
        for (String length : new String[] {"PT15M", "PT1H", "P1D", "P1W", "P1M"}) {
            PeriodCalendar cal = new PeriodCalendar(PeriodLength.parse(length), ZoneId.of("Europe/Berlin"));
            Period p = cal.periodOf(Instant.parse("2026-10-25T01:30:00Z"));
            assertThat(cal.parseLabel(p.label())).as(length).contains(p);
        }
        assertThat(utc("PT1H").parseLabel("2026-11-22")).isEmpty();
        assertThat(utc("PT1H").parseLabel("2026-11-22T1330")).isEmpty();
        assertThat(utc("P1D").parseLabel("rejected")).isEmpty();
    }

    @Test
    void periodLengthsThatDoNotDivideADayAreRefused() {
        assertThatThrownBy(() -> PeriodLength.parse("PT7M")).hasMessageContaining("divide");
        assertThatThrownBy(() -> PeriodLength.parse("PT90S")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PeriodLength.parse("P2D")).isInstanceOf(IllegalArgumentException.class);
        assertThat(PeriodLength.parse("PT24H")).isEqualTo(PeriodLength.DAY);
        assertThat(PeriodLength.parse("pt6h").nominalMinutes()).isEqualTo(360);
    }

    private static Set<String> assertContiguousAndUnique(PeriodCalendar cal, Instant from, Instant to) {
        Set<String> labels = new HashSet<>();
        Period p = cal.periodOf(from);
        while (p.start().isBefore(to)) {
            assertThat(labels.add(p.label())).as("label %s repeats", p.label()).isTrue();
            Period next = cal.next(p);
            assertThat(next.start()).isEqualTo(p.end());
            assertThat(cal.periodOf(p.end().minusMillis(1))).isEqualTo(p);
            p = next;
        }
        for (Instant t = from; t.isBefore(to); t = t.plusSeconds(60)) {
            assertThat(cal.periodOf(t).contains(t)).isTrue();
        }
        return labels;
    }
}
