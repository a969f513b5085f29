package io.periodtables.infra;

import static io.periodtables.infra.PeriodTablesTemplate.MINIMAL;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.periodtables.core.config.UserMetrics;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The alarms of {@code infra/period-tables.yaml}: each watches a metric the job publishes, in
 * the namespace and with the dimension Managed Service for Apache Flink publishes it under, and
 * notifies the topic given, if any.
 */
class AlarmTemplateTest {

    @Test
    void loweringThatLearnsNothingIsAnAlarmOnTheRotationsGauge() {
        JsonNode alarm = PeriodTablesTemplate.stack(MINIMAL).properties("LoweringStalledAlarm");
        assertThat(alarm.path("Namespace").asText()).isEqualTo("AWS/KinesisAnalytics");
        assertThat(alarm.path("MetricName").asText()).isEqualTo(UserMetrics.LOWERING_STALLED);
        assertThat(alarm.path("Dimensions")).hasSize(1);
        assertThat(alarm.path("Dimensions").get(0).path("Name").asText()).isEqualTo("Application");
        assertThat(alarm.path("Dimensions").get(0).path("Value").asText()).isEqualTo("period-tables");
        assertThat(alarm.path("Statistic").asText()).isEqualTo("Maximum");
        assertThat(alarm.path("ComparisonOperator").asText()).isEqualTo("GreaterThanThreshold");
        assertThat(alarm.path("Threshold").asDouble()).isZero();
        assertThat(alarm.path("TreatMissingData").asText()).isEqualTo("notBreaching");
        assertThat(alarm.path("AlarmActions")).isEmpty();
    }

    @Test
    void aSourceFarBehindTheStreamsTipIsAnAlarmOnTheReadersGauge() {
        JsonNode alarm = PeriodTablesTemplate.stack(MINIMAL).properties("ReadBehindAlarm");
        assertThat(alarm.path("Namespace").asText()).isEqualTo("AWS/KinesisAnalytics");
        assertThat(alarm.path("MetricName").asText()).isEqualTo(UserMetrics.MILLIS_BEHIND_LATEST);
        assertThat(alarm.path("Dimensions").get(0).path("Name").asText()).isEqualTo("Application");
        assertThat(alarm.path("Statistic").asText()).isEqualTo("Maximum");
        assertThat(alarm.path("ComparisonOperator").asText()).isEqualTo("GreaterThanThreshold");
        assertThat(alarm.path("Threshold").asDouble()).isEqualTo(600_000);
        assertThat(alarm.path("AlarmActions")).isEmpty();
    }

    @Test
    void theAlarmNotifiesTheTopicWhenOneIsGiven() {
        Map<String, String> parameters = new HashMap<>(MINIMAL);
        parameters.put("AlarmTopicArn", "arn:aws:sns:eu-west-1:123456789012:ops");
        JsonNode alarm = PeriodTablesTemplate.stack(parameters).properties("LoweringStalledAlarm");
        assertThat(PeriodTablesTemplate.texts(alarm.path("AlarmActions")))
                .containsExactly("arn:aws:sns:eu-west-1:123456789012:ops");
    }

    /** MSF's own metrics the guide's alarms watch (docs/operations.md, "MSF and Kinesis built-ins"). */
    private static final Set<String> MSF_METRICS = Set.of("downtime", "fullRestarts", "numberOfFailedCheckpoints");

    @Test
    void everyAlarmTheGuideRecommendsWatchesItsMetricsInTheTemplate() throws IOException {
        Map<String, Set<String>> recommended = recommendedAlarms();
        assertThat(recommended).hasSizeGreaterThanOrEqualTo(13);
        Set<String> watched = new LinkedHashSet<>();
        alarms(PeriodTablesTemplate.stack(MINIMAL)).values().forEach(alarm -> watched.addAll(metricNames(alarm)));
        recommended.forEach((alarm, metrics) -> assertThat(watched)
                .as("the guide's alarm '%s' watches %s", alarm, metrics)
                .containsAll(metrics));
    }

    @Test
    void everyAlarmWatchesTheApplicationsMetricsAndNotifiesTheTopic() {
        Map<String, String> parameters = new HashMap<>(MINIMAL);
        parameters.put("AlarmTopicArn", "arn:aws:sns:eu-west-1:123456789012:ops");
        Map<String, JsonNode> alarms = alarms(PeriodTablesTemplate.stack(parameters));
        assertThat(alarms).hasSizeGreaterThanOrEqualTo(17);
        alarms.forEach((name, alarm) -> {
            assertThat(PeriodTablesTemplate.texts(alarm.path("AlarmActions")))
                    .as(name)
                    .containsExactly("arn:aws:sns:eu-west-1:123456789012:ops");
            for (JsonNode metric : metrics(alarm)) {
                assertThat(metric.path("Namespace").asText()).as(name).isEqualTo("AWS/KinesisAnalytics");
                // Our metrics are registered directly under the group kinesisanalytics, with no
                // user variables: at MetricsLevel APPLICATION, MSF publishes them by application only.
                assertThat(metric.path("Dimensions")).as(name).hasSize(1);
                assertThat(metric.path("Dimensions").get(0).path("Name").asText())
                        .as(name)
                        .isEqualTo("Application");
                assertThat(metric.path("Dimensions").get(0).path("Value").asText())
                        .as(name)
                        .isEqualTo("period-tables");
            }
        });
    }

    @Test
    void quotaAlarmsCompareWithTheLimitsTheJobIsGiven() {
        Map<String, String> parameters = new HashMap<>(MINIMAL);
        parameters.put("LimitsMaxTables", "1000");
        JsonNode alarm = alarms(PeriodTablesTemplate.stack(parameters)).get("TableQuotaAlarm");
        assertThat(alarm.path("Metrics").findValuesAsText("Expression")).containsExactly("m / 1000");
        assertThat(alarm.path("Threshold").asDouble()).isEqualTo(0.8);
    }

    /** The alarms of the guide's table "Alarms worth setting": first column to the metrics its expression names. */
    private static Map<String, Set<String>> recommendedAlarms() throws IOException {
        Set<String> known = new LinkedHashSet<>(MSF_METRICS);
        for (Field field : UserMetrics.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                try {
                    known.add((String) field.get(null));
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        String guide = Files.readString(Path.of("..", "docs", "operations.md"));
        String table = guide.substring(guide.indexOf("**Alarms worth setting"));
        Map<String, Set<String>> alarms = new LinkedHashMap<>();
        Pattern word = Pattern.compile("[A-Za-z]+");
        for (String line : table.split("\n")) {
            if (!line.startsWith("| ") || line.startsWith("| alarm ")) {
                if (!alarms.isEmpty() && !line.startsWith("|")) {
                    break;
                }
                continue;
            }
            String[] cells = line.split("\\|");
            Set<String> metrics = new LinkedHashSet<>();
            Matcher m = word.matcher(cells[2]);
            while (m.find()) {
                if (known.contains(m.group())) {
                    metrics.add(m.group());
                }
            }
            assertThat(metrics)
                    .as("metrics named by the guide's alarm '%s'", cells[1].trim())
                    .isNotEmpty();
            alarms.put(cells[1].trim(), metrics);
        }
        return alarms;
    }

    private static Map<String, JsonNode> alarms(TemplateEvaluator stack) {
        Map<String, JsonNode> alarms = new LinkedHashMap<>();
        PeriodTablesTemplate.raw().path("Resources").fields().forEachRemaining(e -> {
            if (e.getValue().path("Type").asText().equals("AWS::CloudWatch::Alarm")) {
                alarms.put(e.getKey(), stack.properties(e.getKey()));
            }
        });
        return alarms;
    }

    /** The metrics an alarm reads: its own, or those of its metric math. */
    private static List<JsonNode> metrics(JsonNode alarm) {
        List<JsonNode> metrics = new ArrayList<>();
        if (alarm.has("MetricName")) {
            metrics.add(alarm);
        }
        alarm.path("Metrics").forEach(query -> {
            if (query.has("MetricStat")) {
                metrics.add(query.path("MetricStat").path("Metric"));
            }
        });
        return metrics;
    }

    private static List<String> metricNames(JsonNode alarm) {
        return metrics(alarm).stream().map(m -> m.path("MetricName").asText()).toList();
    }
}
