package io.periodtables.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Nearest-rank percentiles: always one of the values, whatever the order they came in. */
class PercentilesTest {

    @Test
    void hundredValuesGiveTheValuesAtRanks50And90And99() {
        List<Long> values = new ArrayList<>();
        for (long v = 1; v <= 100; v++) {
            values.add(v * 10);
        }
        Collections.shuffle(values, new java.util.Random(7));

        assertThat(Percentiles.of(values)).isEqualTo(new Percentiles(100, 500, 900, 990, 1000));
    }

    @Test
    void aFewValuesRoundTheRankUp() {
        // ranks ceil(0.5 × 3) = 2, ceil(0.9 × 3) = 3, ceil(0.99 × 3) = 3
        assertThat(Percentiles.of(List.of(30L, 10L, 20L))).isEqualTo(new Percentiles(3, 20, 30, 30, 30));
        assertThat(Percentiles.of(List.of(5L))).isEqualTo(new Percentiles(1, 5, 5, 5, 5));
    }

    @Test
    void noValuesGiveZeroSamples() {
        assertThat(Percentiles.of(List.of()).n()).isZero();
    }
}
