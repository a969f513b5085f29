package io.periodtables.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SvgChartTest {

    @Test
    void drawsTheRateARolloverLineEachAndTheMedian() {
        double[] perSecond = new double[60];
        java.util.Arrays.fill(perSecond, 1000);
        perSecond[20] = 900;

        String svg = SvgChart.render("rollovers", perSecond, List.of(20.0, 40.0), 1000);

        assertThat(svg)
                .startsWith("<?xml")
                .contains(">rollovers<", ">median 1,000/s<", ">seconds since start<", ">readings written per second<");
        assertThat(svg.split("stroke:rgb\\(204,51,51\\)", -1)).hasSize(2 + 1);
        assertThat(svg.split("stroke:rgb\\(31,95,191\\)", -1)).hasSize(59 + 1);
    }
}
