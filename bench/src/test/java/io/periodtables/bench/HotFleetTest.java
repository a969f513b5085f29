package io.periodtables.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.job.input.ParsingGenerator;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The hot-device bench's input, as the job parses it: the hot device a millisecond apart in event
 * time, each quiet device once a minute, 1,166.7 readings a second in all.
 */
class HotFleetTest {

    private static final Instant START = Instant.parse("2025-06-01T00:00:00Z");

    @Test
    void theHotDeviceReadsEveryMillisecondAndEachQuietDeviceOnceAMinute() throws Exception {
        PeriodTablesConfig config = BenchConfigs.load(
                BenchConfigs.fleet("t", URI.create("http://127.0.0.1:1"), 1, 10_001, START, Duration.ofMinutes(3)));
        HotFleet fleet = new HotFleet(config, 10_000, Duration.ofMinutes(1), START);
        long count = fleet.count(Duration.ofMinutes(3));
        ParsingGenerator parser = new ParsingGenerator(config, "generator", fleet);
        parser.open(null);

        List<Long> hot = new ArrayList<>();
        Map<String, List<Long>> quiet = new HashMap<>();
        long previous = Long.MIN_VALUE;
        for (long n = 0; n < count; n++) {
            SinkRecord record = parser.map(n);
            assertThat(record.kind()).as("record %d", n).isEqualTo(SinkRecord.Kind.PERIOD);
            Reading reading = record.reading();
            assertThat(reading.eventMillis()).isGreaterThanOrEqualTo(previous);
            previous = reading.eventMillis();
            if (reading.deviceId().equals(HotFleet.HOT_DEVICE)) {
                hot.add(reading.eventMillis());
            } else {
                quiet.computeIfAbsent(reading.deviceId(), d -> new ArrayList<>())
                        .add(reading.eventMillis());
            }
        }

        assertThat(fleet.perSecond()).isCloseTo(1166.67, offset(0.01));
        assertThat(count).isEqualTo(180_000 + 30_000);
        assertThat(hot).hasSize(180_000);
        for (int i = 0; i < hot.size(); i++) {
            assertThat(hot.get(i)).isEqualTo(START.toEpochMilli() + i);
        }
        assertThat(quiet).hasSize(10_000);
        assertThat(quiet.values()).allSatisfy(times -> {
            assertThat(times).hasSize(3);
            assertThat(times.get(1) - times.get(0)).isEqualTo(60_000);
            assertThat(times.get(2) - times.get(1)).isEqualTo(60_000);
        });
    }
}
