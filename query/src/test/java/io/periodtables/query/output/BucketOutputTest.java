package io.periodtables.query.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.item.Rollups;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BucketOutputTest {

    private static final long START = Instant.parse("2026-11-22T13:00:00Z").toEpochMilli();

    private static Rollups.FieldStats stats(long count, String min, String max, String sum) {
        return new Rollups.FieldStats(
                count,
                new BigDecimal(min),
                new BigDecimal(max),
                new BigDecimal(sum),
                new BigDecimal(max),
                new BigDecimal(min));
    }

    @Test
    void averageHasSixteenDigitsAndNeverAnExponent() {
        assertThat(BucketOutput.average(stats(3, "0", "1", "1"))).isEqualTo("0.3333333333333333");
        assertThat(BucketOutput.average(stats(2, "10", "50", "6E+1"))).isEqualTo("30");
        assertThat(BucketOutput.average(stats(4, "-2", "1", "-3"))).isEqualTo("-0.75");
    }

    @Test
    void theTableRoundsTheAverageToOneDecimalMoreThanTheReadings() {
        assertThat(BucketOutput.tableAverage(stats(3, "19.18", "25.38", "67.33")))
                .isEqualTo("22.443");
        assertThat(BucketOutput.tableAverage(stats(2, "10", "50", "6E+1"))).isEqualTo("30.0");
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        BucketOutput.printer(ReadingOutput.TABLE, new PrintStream(text, true, StandardCharsets.UTF_8), "dev-1")
                .accept(new Rollups.Bucket(
                        "dev-1", Duration.ofMinutes(1), START, 3, Map.of("temp", stats(3, "19.18", "25.38", "67.33"))));
        assertThat(text.toString(StandardCharsets.UTF_8)).contains(" 22.443 ").doesNotContain("22.44333");
    }

    @Test
    void jsonNestsTheFieldsAndWritesNumbersAsNumbers() {
        Rollups.Bucket bucket = new Rollups.Bucket(
                "dev-1", Duration.ofHours(1), START, 3, Map.of("temp", stats(3, "1E+1", "12", "33")));

        assertThat(BucketOutput.json(bucket))
                .isEqualTo("{\"deviceId\":\"dev-1\",\"grain\":\"PT1H\",\"start\":\"2026-11-22T13:00:00.000Z\","
                        + "\"readings\":3,\"fields\":{\"temp\":{\"count\":3,\"min\":10,\"max\":12,\"avg\":11,"
                        + "\"first\":12,\"last\":10}}}");
    }

    @Test
    void csvLeavesTheCellsOfAFieldABucketLacksEmpty() {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8);
        BucketOutput.Printer printer = BucketOutput.printer(ReadingOutput.CSV, out, "dev-1");

        printer.accept(
                new Rollups.Bucket("dev-1", Duration.ofMinutes(1), START, 2, Map.of("a,b", stats(2, "1", "2", "3"))));
        printer.accept(new Rollups.Bucket("dev-1", Duration.ofMinutes(1), START + 60_000, 1, Map.of()));
        printer.finish();

        assertThat(text.toString(StandardCharsets.UTF_8).lines())
                .containsExactly(
                        "start,deviceId,grain,readings,\"a,b.count\",\"a,b.min\",\"a,b.max\",\"a,b.avg\",\"a,b.first\",\"a,b.last\"",
                        "2026-11-22T13:00:00.000Z,dev-1,PT1M,2,2,1,2,1.5,2,1",
                        "2026-11-22T13:01:00.000Z,dev-1,PT1M,1,,,,,,");
    }
}
