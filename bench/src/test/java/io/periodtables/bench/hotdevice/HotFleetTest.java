package io.periodtables.bench.hotdevice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import io.periodtables.bench.BenchConfigs;
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
import java.util.stream.LongStream;
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
                BenchConfigs.fleet("t", URI.create("http://127.0.0.1:1"), 1, 10_001, START, Duration.ofMinutes(2)));
        HotFleet fleet = new HotFleet(config, 10_000, Duration.ofMinutes(1), START);
        long count = fleet.count(Duration.ofMinutes(2));
        ParsingGenerator parser = new ParsingGenerator(config, "generator", fleet);
        parser.open(null);

        List<SinkRecord.Kind> kinds = new ArrayList<>();
        List<Long> hot = new ArrayList<>();
        Map<String, List<Long>> quiet = new HashMap<>();
        long backwards = 0;
        long previous = Long.MIN_VALUE;
        for (long n = 0; n < count; n++) {
            SinkRecord record = parser.map(n);
            if (record.kind() != SinkRecord.Kind.PERIOD) {
                kinds.add(record.kind());
                continue;
            }
            Reading reading = record.reading();
            backwards += reading.eventMillis() < previous ? 1 : 0;
            previous = reading.eventMillis();
            if (reading.deviceId().equals(HotFleet.HOT_DEVICE)) {
                hot.add(reading.eventMillis() - START.toEpochMilli());
            } else {
                quiet.computeIfAbsent(reading.deviceId(), d -> new ArrayList<>())
                        .add(reading.eventMillis());
            }
        }

        assertThat(kinds).as("records parsed as other than a period reading").isEmpty();
        assertThat(backwards).as("readings earlier than the one before").isZero();
        assertThat(fleet.perSecond()).isCloseTo(1166.67, offset(0.01));
        assertThat(count).isEqualTo(120_000 + 20_000);
        assertThat(hot).isEqualTo(LongStream.range(0, 120_000).boxed().toList());
        assertThat(quiet).hasSize(10_000);
        assertThat(quiet.values().stream().map(t -> t.get(1) - t.get(0)).distinct())
                .containsExactly(60_000L);
    }
}
