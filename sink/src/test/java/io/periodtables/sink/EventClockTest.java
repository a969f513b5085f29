package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EventClockTest {

    @Test
    void beforeTheFirstWatermarkTheNewestReadingMinusTheOutOfOrdernessStandsForIt() {
        EventClock clock = new EventClock(5_000);
        assertThat(clock.now()).as("nothing seen").isEqualTo(Long.MIN_VALUE);
        clock.reading(100_000);
        clock.reading(90_000);
        assertThat(clock.now()).isEqualTo(95_000);
    }

    @Test
    void theWatermarkWinsOnceItArrivesAndTheEndOfInputIsIgnored() {
        EventClock clock = new EventClock(5_000);
        clock.reading(100_000);
        clock.watermark(80_000);
        clock.watermark(70_000);
        clock.watermark(Long.MAX_VALUE);
        assertThat(clock.now()).isEqualTo(80_000);
    }
}
