package io.periodtables.query.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.TableNaming;
import io.periodtables.query.StoredReading;
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

        String svg = ReadingChart.svg("device-00007", readings, from, to, naming);

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
