package io.periodtables.query.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.query.StoredReading;
import java.awt.Font;
import java.awt.font.FontRenderContext;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class ReadingChartTest {
    private final PeriodTablesConfig config =
            ConfigLoader.load(new String[] {"--tables.prefix", "r", "--tables.period", "PT1H"}, Map.of(), true);
    private final TableNaming naming = config.naming();

    @Test
    void drawsALinePerMetricDashedPeriodBoundariesAndLateReadingsAsCrosses() {
        Instant from = Instant.parse("2026-11-22T12:30:00Z");
        Instant to = Instant.parse("2026-11-22T15:30:00Z");
        List<StoredReading> readings = new ArrayList<>();
        for (int minute = 0; minute < 180; minute += 10) {
            Instant at = from.plusSeconds(minute * 60L);
            boolean late = minute == 40 || minute == 130;
            readings.add(reading(
                    at, late ? naming.lateTable(to) : naming.periodTableOf(at), 20 + minute / 60.0, 40 + minute % 7));
        }

        String svg = ReadingChart.svg("device-00007", readings, from, to, naming, List.of());

        assertThat(svg)
                .startsWith("<?xml")
                .contains("<svg")
                .contains("device-00007: 18 readings")
                .contains(">temperature<", ">humidity<")
                .doesNotContain(">label<");
        // A rollover is a dashed line in each panel, labelled once with the period that starts there.
        assertThat(svg)
                .contains(">2026-11-22T1300<", ">2026-11-22T1400<", ">2026-11-22T1500<")
                .doesNotContain(">2026-11-22T1200<");
        assertThat(count(svg, "stroke-dasharray:5.0,4.0")).isEqualTo(3 * 2);
        // One line per metric through all 18 readings; the two late ones crossed in red in each panel.
        assertThat(count(svg, "stroke:rgb\\(31,95,191\\)")).isEqualTo(17 * 2);
        assertThat(count(svg, "stroke:rgb\\(204,34,34\\)")).isEqualTo(2 * 2);
        assertThat(svg).contains("late reading, stored in a late table (2)");
    }

    @Test
    void aLineJoinsOnlyReadingsWithNoGapBetweenThemAndALoneReadingIsADot() {
        // Every 10 s from 12:00 to 12:10 and from 12:30 to 12:40, one reading alone at 12:50: the
        // median spacing is 10 s, so a line ends where the next reading is more than 50 s away.
        Instant from = Instant.parse("2026-11-22T12:00:00Z");
        List<StoredReading> readings = new ArrayList<>();
        for (int s = 0; s <= 600; s += 10) {
            readings.add(temperature(from.plusSeconds(s), 20 + s % 7));
        }
        for (int s = 1800; s <= 2400; s += 10) {
            readings.add(temperature(from.plusSeconds(s), 20 + s % 7));
        }
        readings.add(temperature(from.plusSeconds(3000), 21));

        String svg = ReadingChart.svg("device-00007", readings, from, from.plusSeconds(3600), naming, List.of());

        assertThat(count(svg, "<line[^>]*stroke:rgb\\(31,95,191\\)")).isEqualTo(60 + 60);
        assertThat(count(svg, "fill:rgb\\(31,95,191\\)")).isEqualTo(1);
    }

    /**
     * What a run resumed from a savepoint minutes later looks like (the local run's fleet starts
     * its event time at the wall clock again): readings until 15:48:28, none until 15:53:05, no
     * tables for 15:50 to 15:52. The line stops at the gap, and the periods without a table are
     * shaded in one band.
     */
    @Test
    void aResumedRunsGapIsLeftEmptyAndItsPeriodsWithoutATableAreShaded() {
        TableNaming minutes = ConfigLoader.load(
                        new String[] {"--tables.prefix", "r", "--tables.period", "PT1M"}, Map.of(), true)
                .naming();
        Instant from = Instant.parse("2026-11-27T15:48:00Z");
        List<StoredReading> readings = new ArrayList<>();
        for (int s = 20; s <= 28; s++) {
            readings.add(temperature(from.plusSeconds(s), 20 + s % 7));
        }
        for (int s = 305; s <= 315; s++) {
            readings.add(temperature(from.plusSeconds(s), 20 + s % 7));
        }
        List<Period> noTable = new ArrayList<>();
        for (String label : List.of("2026-11-27T1550", "2026-11-27T1551", "2026-11-27T1552")) {
            noTable.add(minutes.calendar().parseLabel(label).orElseThrow());
        }

        String svg = ReadingChart.svg("device-00007", readings, from, from.plusSeconds(360), minutes, noTable);

        assertThat(count(svg, "<line[^>]*stroke:rgb\\(31,95,191\\)")).isEqualTo(8 + 10);
        assertThat(count(svg, "fill:rgb\\(238,238,238\\)")).isEqualTo(1);
        assertThat(svg).contains("gray: no table for the period");
    }

    @Test
    void anHourOfOneMinutePeriodsIsLabelledEveryTenMinutesWithoutOverlapAndEachBoundaryDashed() {
        TableNaming minutes = ConfigLoader.load(
                        new String[] {"--tables.prefix", "r", "--tables.period", "PT1M"}, Map.of(), true)
                .naming();
        Instant from = Instant.parse("2026-11-22T12:00:00Z");
        List<StoredReading> readings = new ArrayList<>();
        for (int s = 0; s < 3600; s += 30) {
            readings.add(temperature(from.plusSeconds(s), 20 + s % 7));
        }

        String svg = ReadingChart.svg("device-00007", readings, from, from.plusSeconds(3600), minutes, List.of());

        List<Label> labels = periodLabels(svg);
        assertThat(labels)
                .extracting(Label::text)
                .containsExactly(
                        "2026-11-22T1210", "2026-11-22T1220", "2026-11-22T1230", "2026-11-22T1240", "2026-11-22T1250");
        assertNoOverlap(labels);
        assertThat(count(svg, "stroke-dasharray:5.0,4.0")).isEqualTo(59);
    }

    @Test
    void aDayOfOneMinutePeriodsHasAtMostEightLabelsAndDashesOnlyTheLabelledBoundaries() {
        TableNaming minutes = ConfigLoader.load(
                        new String[] {"--tables.prefix", "r", "--tables.period", "PT1M"}, Map.of(), true)
                .naming();
        Instant from = Instant.parse("2026-11-22T00:00:00Z");
        List<StoredReading> readings = new ArrayList<>();
        for (int s = 0; s < 86_400; s += 600) {
            readings.add(temperature(from.plusSeconds(s), 20 + s % 7));
        }

        String svg = ReadingChart.svg("device-00007", readings, from, from.plusSeconds(86_400), minutes, List.of());

        List<Label> labels = periodLabels(svg);
        assertThat(labels)
                .extracting(Label::text)
                .containsExactly(
                        "2026-11-22T0300",
                        "2026-11-22T0600",
                        "2026-11-22T0900",
                        "2026-11-22T1200",
                        "2026-11-22T1500",
                        "2026-11-22T1800",
                        "2026-11-22T2100");
        assertNoOverlap(labels);
        assertThat(count(svg, "stroke-dasharray:5.0,4.0")).isEqualTo(7);
        assertThat(svg).contains("dashed: every 180th period boundary (a new table)");
    }

    @Test
    void labelStepsAreRoundAndLeaveAtMostEightLabels() {
        for (int boundaries = 0; boundaries <= 20_000; boundaries++) {
            int step = ReadingChart.labelStep(boundaries);
            assertThat((boundaries + step - 1) / step).isLessThanOrEqualTo(ReadingChart.MAX_LABELS);
        }
        assertThat(ReadingChart.labelStep(8)).isEqualTo(1);
        assertThat(ReadingChart.labelStep(23)).isEqualTo(3); // a day of hours: every 3 hours
        assertThat(ReadingChart.labelStep(59)).isEqualTo(10);
    }

    @Test
    void aBoundaryNearTheRightEdgeHasItsWholeLabelInsideTheChart() {
        TableNaming minutes = ConfigLoader.load(
                        new String[] {"--tables.prefix", "r", "--tables.period", "PT1M"}, Map.of(), true)
                .naming();
        Instant from = Instant.parse("2026-11-22T12:00:00Z");
        List<StoredReading> readings = new ArrayList<>();
        for (int s = 0; s < 320; s += 10) {
            readings.add(temperature(from.plusSeconds(s), 20 + s % 7));
        }

        String svg = ReadingChart.svg("device-00007", readings, from, from.plusSeconds(320), minutes, List.of());

        List<Label> labels = periodLabels(svg);
        assertThat(labels)
                .extracting(Label::text)
                .containsExactlyInAnyOrder(
                        "2026-11-22T1201", "2026-11-22T1202", "2026-11-22T1203", "2026-11-22T1204", "2026-11-22T1205");
        for (Label label : labels) {
            // the plot ends a few pixels inside the chart's 1,000
            assertThat(label.x() + label.width()).as(label.text()).isLessThanOrEqualTo(990);
        }
        assertNoOverlap(labels);
    }

    /** A period label drawn in the SVG: its text, where it starts and its font size. */
    private record Label(String text, double x, float fontSize) {
        double width() {
            Font font = new Font(Font.SANS_SERIF, Font.PLAIN, Math.round(fontSize));
            return font.getStringBounds(text, new FontRenderContext(null, true, true))
                    .getWidth();
        }
    }

    private static List<Label> periodLabels(String svg) {
        Matcher m = Pattern.compile(
                        "<text x='([-0-9.]+)'[^>]*font-size:\\s*([0-9.]+)px[^>]*>(\\d{4}-\\d{2}-\\d{2}T\\d{4})</text>")
                .matcher(svg);
        List<Label> labels = new ArrayList<>();
        while (m.find()) {
            labels.add(new Label(m.group(3), Double.parseDouble(m.group(1)), Float.parseFloat(m.group(2))));
        }
        return labels;
    }

    private static void assertNoOverlap(List<Label> labels) {
        List<Label> byX = new ArrayList<>(labels);
        byX.sort(java.util.Comparator.comparingDouble(Label::x));
        for (int i = 1; i < byX.size(); i++) {
            assertThat(byX.get(i).x())
                    .as(
                            "%s starts after %s ends",
                            byX.get(i).text(), byX.get(i - 1).text())
                    .isGreaterThan(byX.get(i - 1).x() + byX.get(i - 1).width());
        }
    }

    private StoredReading temperature(Instant at, double value) {
        return new StoredReading(
                "device-00007",
                at,
                at + "#00000000",
                naming.periodTableOf(at),
                0,
                Map.of("temperature", AttributeValue.fromN(Double.toString(value))),
                null);
    }

    private static StoredReading reading(Instant at, String table, double temperature, double humidity) {
        return new StoredReading(
                "device-00007",
                at,
                at + "#00000000",
                table,
                0,
                Map.of(
                        "temperature", AttributeValue.fromN(Double.toString(temperature)),
                        "humidity", AttributeValue.fromN(Double.toString(humidity)),
                        "label", AttributeValue.fromS("not a number")),
                null);
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
