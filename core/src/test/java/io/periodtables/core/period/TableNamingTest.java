package io.periodtables.core.period;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class TableNamingTest {

    private final TableNaming daily = new TableNaming("readings", new PeriodCalendar(PeriodLength.DAY, ZoneOffset.UTC));

    @Test
    void namesFollowTheDesignContract() {
        assertThat(daily.periodTableOf(Instant.parse("2026-11-22T13:45:01Z"))).isEqualTo("readings_2026-11-22");
        assertThat(new TableNaming("readings", new PeriodCalendar(PeriodLength.parse("PT1H"), ZoneOffset.UTC))
                        .periodTableOf(Instant.parse("2026-11-22T13:45:01Z")))
                .isEqualTo("readings_2026-11-22T1300");
        assertThat(new TableNaming("readings", new PeriodCalendar(PeriodLength.WEEK, ZoneOffset.UTC))
                        .periodTableOf(Instant.parse("2026-11-22T13:45:01Z")))
                .isEqualTo("readings_2026-W47");
        assertThat(new TableNaming("readings", new PeriodCalendar(PeriodLength.MONTH, ZoneOffset.UTC))
                        .periodTableOf(Instant.parse("2026-11-22T13:45:01Z")))
                .isEqualTo("readings_2026-11");
        assertThat(daily.rejectedTable()).isEqualTo("readings_rejected");
    }

    @Test
    void lateTableIsTheUtcMonthOfWriting() {
        assertThat(daily.lateTable(Instant.parse("2026-11-30T23:59:59Z"))).isEqualTo("readings_late_2026-11");
        assertThat(daily.lateTable(Instant.parse("2026-12-01T00:00:00Z"))).isEqualTo("readings_late_2026-12");
    }

    @Test
    void namesParseBackIntoWhatTheyAre() {
        assertThat(daily.parse("readings_2026-11-22")).hasValueSatisfying(ref -> {
            assertThat(ref.kind()).isEqualTo(TableNaming.TableRef.Kind.PERIOD);
            assertThat(ref.period().start()).isEqualTo(Instant.parse("2026-11-22T00:00:00Z"));
        });
        assertThat(daily.parse("readings_late_2026-11"))
                .hasValueSatisfying(ref -> assertThat(ref.lateMonth()).isEqualTo(YearMonth.of(2026, 11)));
        assertThat(daily.parse("readings_rejected"))
                .hasValueSatisfying(ref -> assertThat(ref.kind()).isEqualTo(TableNaming.TableRef.Kind.REJECTED));
        assertThat(daily.parse("other_2026-11-22")).isEmpty();
        assertThat(daily.parse("readings_2026-11-22T1300")).isEmpty();
        assertThat(daily.parse("readings_late_2026-13")).isEmpty();
    }

    @Test
    void prefixOutsideTheAllowedCharactersIsRefused() {
        PeriodCalendar cal = new PeriodCalendar(PeriodLength.DAY, ZoneOffset.UTC);
        assertThatThrownBy(() -> new TableNaming("bad prefix", cal)).hasMessageContaining("[A-Za-z0-9_.-]");
        assertThatThrownBy(() -> new TableNaming("", cal)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TableNaming("x".repeat(201), cal)).isInstanceOf(IllegalArgumentException.class);
    }
}
