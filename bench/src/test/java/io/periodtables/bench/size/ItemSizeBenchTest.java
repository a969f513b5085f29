package io.periodtables.bench.size;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The item-size report shows every attribute of the seed reading's item and its total. */
class ItemSizeBenchTest {

    @Test
    void reportsTheSeedReadingsItemAttributeByAttribute() {
        String section = ItemSizeBench.run();

        assertThat(section)
                .contains("| pk |", "| sk |", "| temperature |", "| humidity |", "| pressure |", "**total**");
        assertThat(section).contains("target ≤ 200: met");
    }
}
