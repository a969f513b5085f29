package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.PeriodLength;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.junit.jupiter.api.Test;

/**
 * {@link Period#closesAt} is Flink's own rule for a window with allowed lateness (the window's
 * last millisecond plus the lateness), so the rotation, the archive, the write-load counter and
 * the late routing all close a period at the watermark the period windows do.
 */
class PeriodClosingTest {

    @Test
    void aPeriodClosesAtTheWatermarkThatEndsItsWindowsLateness() {
        PeriodCalendar hourly = new PeriodCalendar(PeriodLength.parse("PT1H"), ZoneOffset.UTC);
        Period period = hourly.periodOf(Instant.parse("2026-03-01T10:20:00Z"));
        Duration lateness = Duration.ofMinutes(5);
        TimeWindow window = new TimeWindow(period.startMillis(), period.endMillis());

        assertThat(period.closesAt(lateness)).isEqualTo(window.maxTimestamp() + lateness.toMillis());
        assertThat(period.closedBy(period.closesAt(lateness) - 1, lateness)).isFalse();
        assertThat(period.closedBy(period.closesAt(lateness), lateness)).isTrue();
        assertThat(period.closedBy(Instant.parse("2026-03-01T11:04:59.999Z"), lateness))
                .isTrue();
        assertThat(period.closedBy(Instant.parse("2026-03-01T11:04:59.998Z"), lateness))
                .isFalse();
    }
}
