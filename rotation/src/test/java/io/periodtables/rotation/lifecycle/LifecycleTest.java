package io.periodtables.rotation.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.PeriodLength;
import io.periodtables.core.period.TableNaming;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

class LifecycleTest {
    private final PeriodCalendar hourly = new PeriodCalendar(PeriodLength.parse("PT1H"), ZoneId.of("UTC"));
    private final Lifecycle lifecycle = new Lifecycle(hourly, Duration.ofMinutes(15), Duration.ofMinutes(5));
    private final Period tenOClock = hourly.periodOf(Instant.parse("2030-03-10T10:00:00Z"));
    private final TableNaming naming = new TableNaming("readings", hourly);

    private static Instant at(String time) {
        return Instant.parse("2030-03-10T" + time + "Z");
    }

    @Test
    void theNextTableIsPrebuiltFromTheLeadBeforeItsStartOn() {
        assertThat(lifecycle.prebuild(at("10:44:59.999"))).isEmpty();
        assertThat(lifecycle.prebuild(at("10:45:00"))).contains(hourly.next(tenOClock));
    }

    @Test
    void aPeriodIsOpenFromThePeriodBeforeItUntilItsGraceEnds() {
        Period eleven = hourly.next(tenOClock);
        assertThat(lifecycle.admission(eleven, at("09:59:59"))).isEqualTo(Lifecycle.Admission.AHEAD);
        assertThat(lifecycle.admission(eleven, at("10:00:00"))).isEqualTo(Lifecycle.Admission.OPEN);
        // closed as Flink's windows close it: last millisecond (10:59:59.999) plus the lateness
        assertThat(lifecycle.admission(tenOClock, at("11:04:59.998"))).isEqualTo(Lifecycle.Admission.OPEN);
        assertThat(lifecycle.admission(tenOClock, at("11:04:59.999"))).isEqualTo(Lifecycle.Admission.CLOSED);
        assertThat(lifecycle.oldestOpen(at("11:04:59.998"))).isEqualTo(tenOClock);
        assertThat(lifecycle.oldestOpen(at("11:04:59.999"))).isEqualTo(eleven);
    }

    @Test
    void aTableStaysCurrentThroughTheGraceThenPreviousForOnePeriodThenOlder() {
        assertThat(lifecycle.tier(tenOClock, at("11:04:59.998"))).isEqualTo(CapacityTier.CURRENT);
        assertThat(lifecycle.tier(tenOClock, at("11:04:59.999"))).isEqualTo(CapacityTier.PREVIOUS);
        assertThat(lifecycle.tier(tenOClock, at("12:04:59.998"))).isEqualTo(CapacityTier.PREVIOUS);
        assertThat(lifecycle.tier(tenOClock, at("12:04:59.999"))).isEqualTo(CapacityTier.OLDER);
    }

    @Test
    void theNextTableAndOnesFurtherAheadAreCurrent() {
        Period eleven = hourly.next(tenOClock);
        Period twelve = hourly.next(eleven);
        assertThat(lifecycle.tier(eleven, at("10:10:00"))).isEqualTo(CapacityTier.CURRENT);
        assertThat(lifecycle.tier(twelve, at("10:10:00")))
                .as("beyond the open range: made for readings ahead")
                .isEqualTo(CapacityTier.CURRENT);
        assertThat(lifecycle.tier(twelve, at("11:00:00"))).isEqualTo(CapacityTier.CURRENT);
    }

    @Test
    void aTableIsLoweredOnlyOnceEverythingBeforeItsCloseIsWritten() {
        assertThat(lifecycle.tier(tenOClock, at("12:30:00"), at("11:00:00"))).isEqualTo(CapacityTier.CURRENT);
        assertThat(lifecycle.tier(tenOClock, at("12:30:00"), at("11:30:00"))).isEqualTo(CapacityTier.PREVIOUS);
        assertThat(lifecycle.tier(tenOClock, at("12:30:00"), at("13:00:00"))).isEqualTo(CapacityTier.OLDER);
    }

    @Test
    void retentionNeverTakesTheTablesOfEitherClocksPeriodAndNextNorTheRejectedTable() {
        Duration retention = Duration.ofHours(6);
        Instant watermark = at("18:30:00");
        Instant wall = Instant.parse("2030-03-10T10:30:00Z");
        assertThat(lifecycle.expired(ref(naming.periodTable(tenOClock)), naming, watermark, wall, retention))
                .as("the wall clock's period")
                .isFalse();
        assertThat(lifecycle.expired(ref(naming.periodTableOf(at("09:00:00"))), naming, watermark, wall, retention))
                .isTrue();
        assertThat(lifecycle.expired(ref(naming.periodTableOf(at("12:00:00"))), naming, watermark, wall, retention))
                .as("ended 5.5 h before the watermark")
                .isFalse();
        assertThat(lifecycle.expired(ref(naming.rejectedTable()), naming, watermark, wall, retention))
                .isFalse();
        assertThat(lifecycle.expired(ref("readings_late_2030-01"), naming, watermark, wall, retention))
                .isTrue();
        assertThat(lifecycle.expired(ref("readings_late_2030-03"), naming, watermark, wall, retention))
                .isFalse();
    }

    @Test
    void periodsFollowTheZoneAcrossADaylightSavingChange() {
        PeriodCalendar berlinDaily = new PeriodCalendar(PeriodLength.DAY, ZoneId.of("Europe/Berlin"));
        Lifecycle daily = new Lifecycle(berlinDaily, Duration.ofMinutes(15), Duration.ofMinutes(5));
        // 2030-03-31 is 23 hours long in Berlin; its end is 22:00 UTC.
        assertThat(daily.prebuild(Instant.parse("2030-03-31T21:45:00Z")))
                .map(Period::label)
                .contains("2030-04-01");
        assertThat(daily.prebuild(Instant.parse("2030-03-31T21:44:59Z"))).isEmpty();
    }

    private TableNaming.TableRef ref(String table) {
        return naming.parse(table).orElseThrow();
    }
}
