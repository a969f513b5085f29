package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The period windows (the production topology's {@code period-windows}) restored under another
 * {@code window.allowed-lateness}: their restored clean-up timers fire at the close under the old
 * lateness, where Flink's window operator no longer clears a window; the trigger purges every
 * batch it fires, so a device silent after the restore still has no window state and no timer
 * left once its period has closed under both.
 */
class PeriodWindowsLatenessTest {

    private static final Instant HOUR = Instant.parse("2025-06-01T08:00:00Z");

    @ParameterizedTest(name = "window.allowed-lateness PT5M -> {0}")
    @ValueSource(strings = {"PT1M", "PT30M"})
    void aDeviceSilentAfterARestoreUnderAnotherLatenessHasNoWindowStateOnceItsPeriodCloses(String lateness)
            throws Exception {
        long t = HOUR.plusSeconds(600).toEpochMilli();
        OperatorSubtaskState savepoint;
        try (var harness = windows("PT5M")) {
            harness.open();
            harness.setProcessingTime(t);
            harness.processWatermark(t - 1);
            harness.processElement(new Reading("dev-1", t, null, "{\"temp\":1}"), t); // buffered, not fired
            savepoint = harness.snapshot(1, t);
        }
        long end = HOUR.plusSeconds(3600).toEpochMilli();
        try (var harness = windows(lateness)) {
            harness.initializeState(savepoint);
            harness.open();
            assertThat(harness.numKeyedStateEntries()).as("the restored batch").isPositive();

            harness.processWatermark(end - 1 + Duration.ofMinutes(30).toMillis()); // both closes passed

            assertThat(harness.extractOutputValues())
                    .as("the restored batch, written")
                    .hasSize(1);
            assertThat(harness.numKeyedStateEntries())
                    .as("window state entries left")
                    .isZero();
            assertThat(harness.numEventTimeTimers())
                    .as("event-time timers left")
                    .isZero();
            harness.setProcessingTime(t + Duration.ofHours(2).toMillis());
            assertThat(harness.numProcessingTimeTimers())
                    .as("processing-time timers left")
                    .isZero();
        }
    }

    /** The production topology's period windows under {@code lateness}, on the heap (which counts its entries). */
    private static KeyedOneInputStreamOperatorTestHarness<String, Reading, SinkRecord> windows(String lateness)
            throws Exception {
        PeriodTablesConfig config = ConfigLoader.fromMap(
                Map.of("tables.period", "PT1H", "window.allowed-lateness", lateness, "window.fire-delay", "PT1S"),
                false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        PeriodTablesTopology.build(env, config, Clock.systemUTC());
        @SuppressWarnings("unchecked")
        OneInputTransformation<Reading, SinkRecord> windows =
                (OneInputTransformation<Reading, SinkRecord>) find(env, "period-windows");
        var harness = new KeyedOneInputStreamOperatorTestHarness<String, Reading, SinkRecord>(
                windows.getOperatorFactory(), Reading::deviceId, Types.STRING);
        harness.setStateBackend(new HashMapStateBackend());
        return harness;
    }

    private static Transformation<?> find(StreamExecutionEnvironment env, String uid) {
        Deque<Transformation<?>> todo = new ArrayDeque<>(env.getTransformations());
        while (!todo.isEmpty()) {
            Transformation<?> next = todo.pop();
            if (uid.equals(next.getUid())) {
                return next;
            }
            todo.addAll(next.getInputs());
        }
        throw new AssertionError("no operator " + uid);
    }
}
