package io.periodtables.job.rotation;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.model.Reading;
import io.periodtables.rotation.lifecycle.OpenCapacity;
import io.periodtables.rotation.lifecycle.TableLoad;
import io.periodtables.rotation.lifecycle.WriteLoad;
import java.time.Instant;
import java.util.Map;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The write load the rotation sizes the next tables from, as the {@code write-load} operator
 * counts it, under a simulated wall clock: a fleet of 20 readings (1 WCU each) a second of event
 * time, read live, in a backfill (962 a wall-clock second, issue 47's) and in a replay (all at
 * once). The table three periods on is sized alike in all three: ceil(20 / 0.7) = 29 WCU.
 */
class WriteLoadCounterTest {
    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
    private static final int PER_SECOND = 20;
    private static final int SECONDS = 600;

    private final PeriodTablesConfig config = ConfigLoader.fromMap(
            Map.of("tables.period", "PT1H", "window.allowed-lateness", "PT5M", "tables.capacity.autoscaling", "false"),
            false);

    @Test
    void aLiveRunABackfillAndAReplaySizeTheTableThreePeriodsOnAlike() throws Exception {
        Period read = config.calendar().periodOf(T0.toEpochMilli());
        Period threeOn =
                config.calendar().next(config.calendar().next(config.calendar().next(read)));
        OpenCapacity live = new OpenCapacity(config, counted(PER_SECOND));
        assertThat(live.sizedFrom(threeOn)).isEqualTo(read);
        assertThat(live.of(threeOn)).as("live").isEqualTo(Capacity.provisioned(29, 300));

        assertThat(new OpenCapacity(config, counted(962)).of(threeOn))
                .as("a backfill reading 962 a wall-clock second: the fleet's rate, not ceil(962 / 0.7) = 1,375")
                .isEqualTo(Capacity.provisioned(29, 300));
        assertThat(new OpenCapacity(config, counted(PER_SECOND * SECONDS)).of(threeOn))
                .as("a replay reading all 12,000 in one wall-clock second")
                .isEqualTo(Capacity.provisioned(29, 300));
    }

    /**
     * What the rotation holds after the counter saw {@link #SECONDS} of event time at {@link
     * #PER_SECOND} readings a second, read at {@code perWallSecond} readings a wall-clock second,
     * the watermark following each second of event time.
     */
    private WriteLoad counted(int perWallSecond) throws Exception {
        WriteLoad load = new WriteLoad();
        try (OneInputStreamOperatorTestHarness<Reading, TableLoad> harness =
                new OneInputStreamOperatorTestHarness<>(new WriteLoadCounter(config))) {
            harness.open();
            long wall = 1_700_000_000_000L;
            harness.setProcessingTime(wall);
            int n = 0;
            for (int s = 0; s < SECONDS; s++) {
                for (int i = 0; i < PER_SECOND; i++, n++) {
                    if (n > 0 && n % perWallSecond == 0) {
                        wall += 1_000;
                        harness.setProcessingTime(wall);
                    }
                    long t = T0.plusSeconds(s).toEpochMilli() + i;
                    harness.processElement(new StreamRecord<>(new Reading("device-" + i, t, null, "{\"v\":1}"), t));
                }
                harness.processWatermark(T0.plusSeconds(s).toEpochMilli() + 999);
            }
            harness.setProcessingTime(wall + 1_000);
            harness.processWatermark(T0.plusSeconds(SECONDS + 1).toEpochMilli());
            harness.extractOutputValues().forEach(load::add);
        }
        return load;
    }
}
