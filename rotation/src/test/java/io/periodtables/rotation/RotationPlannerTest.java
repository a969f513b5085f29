package io.periodtables.rotation;

import io.periodtables.conf.CapacityTier;
import io.periodtables.conf.Period;
import io.periodtables.conf.PeriodCalendar;
import io.periodtables.conf.PeriodLength;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import static org.assertj.core.api.Assertions.assertThat;

class RotationPlannerTest {
    private final PeriodCalendar hourly = new PeriodCalendar(PeriodLength.parse("PT1H"), ZoneId.of("UTC"));
    private final RotationPlanner planner = new RotationPlanner(hourly, Duration.ofMinutes(15), Duration.ofMinutes(5));
    private final Period tenOClock = hourly.periodOf(Instant.parse("2030-03-10T10:00:00Z"));

    @Test
    void onlyTheCurrentTableIsNeededUntilTheLeadBeforeTheRollover() {
        assertThat(planner.periodsNeededAt(Instant.parse("2030-03-10T10:44:59.999Z"))).containsExactly(tenOClock);
    }

    @Test
    void theNextTableIsNeededFromTheLeadBeforeTheRolloverOn() {
        assertThat(planner.periodsNeededAt(Instant.parse("2030-03-10T10:45:00Z")))
                .containsExactly(tenOClock, hourly.next(tenOClock));
    }

    @Test
    void aTableStaysCurrentThroughTheAllowedLatenessThenPreviousForOnePeriodThenOlder() {
        assertThat(planner.tierAt(tenOClock, Instant.parse("2030-03-10T11:04:59.999Z"))).isEqualTo(CapacityTier.CURRENT);
        assertThat(planner.tierAt(tenOClock, Instant.parse("2030-03-10T11:05:00Z"))).isEqualTo(CapacityTier.PREVIOUS);
        assertThat(planner.tierAt(tenOClock, Instant.parse("2030-03-10T12:04:59.999Z"))).isEqualTo(CapacityTier.PREVIOUS);
        assertThat(planner.tierAt(tenOClock, Instant.parse("2030-03-10T12:05:00Z"))).isEqualTo(CapacityTier.OLDER);
    }

    @Test
    void aPrebuiltTableIsCurrentBeforeItsPeriodStarts() {
        assertThat(planner.tierAt(hourly.next(tenOClock), Instant.parse("2030-03-10T10:50:00Z"))).isEqualTo(CapacityTier.CURRENT);
    }

    @Test
    void periodsBetweenTwoInstantsAreTheOnesAWatermarkJumpSkipped() {
        assertThat(planner.periodsBetween(Instant.parse("2030-03-10T10:50:00Z"), Instant.parse("2030-03-10T14:10:00Z"), 48))
                .extracting(Period::label).containsExactly("2030-03-10T1100", "2030-03-10T1200", "2030-03-10T1300");
        assertThat(planner.periodsBetween(Instant.parse("2030-03-10T10:50:00Z"), Instant.parse("2030-03-10T11:10:00Z"), 48))
                .isEmpty();
        assertThat(planner.periodsBetween(Instant.parse("2030-03-10T10:50:00Z"), Instant.parse("2030-03-10T14:10:00Z"), 2))
                .extracting(Period::label).containsExactly("2030-03-10T1200", "2030-03-10T1300");
    }

    @Test
    void periodsFollowTheZoneAcrossADaylightSavingChange() {
        PeriodCalendar berlinDaily = new PeriodCalendar(PeriodLength.DAY, ZoneId.of("Europe/Berlin"));
        RotationPlanner daily = new RotationPlanner(berlinDaily, Duration.ofMinutes(15), Duration.ofMinutes(5));
        // 2030-03-31 is 23 hours long in Berlin; its end is 22:00 UTC.
        assertThat(daily.periodsNeededAt(Instant.parse("2030-03-31T21:45:00Z")))
                .extracting(Period::label).containsExactly("2030-03-31", "2030-04-01");
        assertThat(daily.periodsNeededAt(Instant.parse("2030-03-31T21:44:59Z"))).extracting(Period::label)
                .containsExactly("2030-03-31");
    }
}
