package io.periodtables.bench.freshness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The trigger-wait estimate: the first reading of a batch waits the whole delay, the others half of it. */
class FreshnessReportTest {

    @Test
    void aLoneReadingWaitsTheWholeDelay() {
        assertThat(DelayBreakdown.triggerWaitMillis(Duration.ofMillis(200), 1)).isEqualTo(200.0);
    }

    @Test
    void moreReadingsPerFireBringTheMeanWaitTowardsHalfTheDelay() {
        // (200 + 2 × 100) / 3 and (200 + 10 × 100) / 11
        assertThat(DelayBreakdown.triggerWaitMillis(Duration.ofMillis(200), 3)).isCloseTo(133.33, within(0.01));
        assertThat(DelayBreakdown.triggerWaitMillis(Duration.ofMillis(200), 11)).isCloseTo(109.09, within(0.01));
    }
}
