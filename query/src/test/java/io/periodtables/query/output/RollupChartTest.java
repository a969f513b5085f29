package io.periodtables.query.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.item.Rollups;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class RollupChartTest {
    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final Instant FROM = Instant.parse("2026-11-22T12:00:00Z");

    /** Buckets at minutes 0, 1, 2, 4, 5 and 8: a line and band over 0-3, 4-6 and 8-9, nothing over 3, 6 and 7. */
    @Test
    void aMissingBucketLeavesAGapAndEachBucketCoversItsOwnTime() {
        List<Rollups.Bucket> buckets = new ArrayList<>();
        for (int minute : new int[] {0, 1, 2, 4, 5, 8}) {
            buckets.add(bucket(minute));
        }

        String svg = RollupChart.svg(
                "dev-7", MINUTE, buckets, FROM, FROM.plus(Duration.ofMinutes(10)), ZoneOffset.UTC, List.of());

        assertThat(count(svg, "<g style='fill:rgb\\(159,191,239\\)"))
                .as("bands")
                .isEqualTo(3);
        assertThat(count(svg, "<g style='stroke-width:1.5;stroke:rgb\\(31,95,191\\)"))
                .as("average lines")
                .isEqualTo(3);
    }

    private static Rollups.Bucket bucket(int minute) {
        BigDecimal v = BigDecimal.valueOf(20 + minute % 3);
        return new Rollups.Bucket(
                "dev-7",
                MINUTE,
                FROM.plus(Duration.ofMinutes(minute)).toEpochMilli(),
                2,
                Map.of(
                        "temperature",
                        new Rollups.FieldStats(2, v.subtract(BigDecimal.ONE), v.add(BigDecimal.ONE), v.add(v), v, v)));
    }

    private static int count(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
