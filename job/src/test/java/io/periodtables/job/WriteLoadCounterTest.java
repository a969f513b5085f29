package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.model.Reading;
import io.periodtables.rotation.lifecycle.OpenCapacity;
import io.periodtables.rotation.lifecycle.WriteLoad;
import java.time.Instant;
import java.util.Map;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The write load the rotation sizes the next tables from, as the {@code write-load} operator
 * counts it: a replay (event time far faster than the wall clock) writes a period table at the
 * wall clock's pace, which its event-time seconds do not show.
 */
class WriteLoadCounterTest {
    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

    private final PeriodTablesConfig config = ConfigLoader.fromMap(
            Map.of("tables.period", "PT1H", "window.allowed-lateness", "PT5M", "tables.capacity.autoscaling", "false"),
            false);

    @Test
    void aReplayedHourInTwoWallClockSecondsSizesTheTableThreePeriodsOnForItsWallClockRate() throws Exception {
        WriteLoad load = new WriteLoad();
        try (OneInputStreamOperatorTestHarness<Reading, io.periodtables.rotation.lifecycle.TableLoad> harness =
                new OneInputStreamOperatorTestHarness<>(new WriteLoadCounter(config))) {
            harness.open();
            // an hour of event time, one reading (1 WCU) a second, replayed within two wall-clock seconds
            harness.setProcessingTime(1_700_000_000_000L);
            for (int s = 0; s < 3_600; s++) {
                if (s == 2_000) {
                    harness.setProcessingTime(1_700_000_001_000L);
                }
                long t = T0.plusSeconds(s).toEpochMilli();
                harness.processElement(new StreamRecord<>(new Reading("device-" + s % 50, t, null, "{\"v\":1}"), t));
            }
            harness.processWatermark(T0.plusSeconds(3_600).toEpochMilli());
            harness.setProcessingTime(1_700_000_002_000L);
            harness.processWatermark(T0.plusSeconds(3_601).toEpochMilli());
            harness.extractOutputValues().forEach(load::add);
        }
        Period replayed = config.calendar().periodOf(T0.toEpochMilli());
        Period threeOn =
                config.calendar().next(config.calendar().next(config.calendar().next(replayed)));
        assertThat(new OpenCapacity(config, load).sizedFrom(threeOn)).isEqualTo(replayed);

        assertThat(new OpenCapacity(config, load).of(threeOn))
                .as("2,000 writes in the busier wall-clock second: ceil(2,000 / 0.7) WCU, not 1 WCU a second of event"
                        + " time's")
                .isEqualTo(Capacity.provisioned(2_858, 300));
    }
}
