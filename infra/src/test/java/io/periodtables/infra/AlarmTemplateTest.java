package io.periodtables.infra;

import static io.periodtables.infra.PeriodTablesTemplate.MINIMAL;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.periodtables.core.config.UserMetrics;
import java.util.HashMap;
import java.util.Map;
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
}
