package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.SinkRecord;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.throwable.ThrowableClassifier;
import org.apache.flink.runtime.throwable.ThrowableType;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A restore with a setting the state is laid out by changed fails at start with one line naming
 * the key, its value now and the value the savepoint was taken with, and suppresses restarts; a
 * restore that changes only what may change (grains, capacity, timings) and one of a savepoint
 * that kept no settings (an earlier release) runs.
 */
class RedeployCheckTest {

    private static final Map<String, String> BEFORE = Map.of(
            "tables.prefix", "redeploy",
            "tables.period", "PT1H",
            "tables.shards", "2",
            "rollups.every", "PT1M,PT1H",
            "archive.path", "file:///tmp/redeploy-archive");

    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "tables.prefix|redeploy|other",
                "tables.period|PT1H|P1D",
                "tables.zone|UTC|Europe/Berlin",
                "tables.shards|2|3",
                "rollups.fields|(unset)|temp",
                "latest.enabled|true|false",
                "archive.path|file:///tmp/redeploy-archive|file:///tmp/elsewhere",
                "archive.columns|(unset)|temp:double",
            })
    void aChangedSettingTheStateIsLaidOutByIsRefusedInOneLineWithoutRestarts(String key, String was, String now)
            throws Exception {
        OperatorSubtaskState savepoint = snapshot(config(Map.of()));

        assertThatThrownBy(() -> restore(config(Map.of(key, now)), savepoint))
                .satisfies(e -> assertThat(ThrowableClassifier.getThrowableType(e))
                        .isEqualTo(ThrowableType.NonRecoverableError))
                .cause()
                .hasMessage("Invalid configuration: " + key + " = '" + now + "' cannot change across a restore: the"
                        + " savepoint was taken with " + key + " = '" + was + "'; set it back, or start without the"
                        + " savepoint (docs/operations.md, What may change across a redeploy)");
    }

    @Test
    void theLatePolicyIsKeptToo() throws Exception {
        Map<String, String> lateOnly = new HashMap<>(BEFORE);
        lateOnly.remove("archive.path");
        lateOnly.remove("rollups.every"); // a late reading in its period table would be in no rollup
        OperatorSubtaskState savepoint = snapshot(ConfigLoader.fromMap(lateOnly, false));
        lateOnly.put("late.policy", "period-table");

        assertThatThrownBy(() -> restore(ConfigLoader.fromMap(lateOnly, false), savepoint))
                .cause()
                .hasMessageStartingWith("Invalid configuration: late.policy = 'period-table' cannot change");
    }

    @Test
    void grainsCapacityTimingsAndTheLatestIntervalMayChange() throws Exception {
        OperatorSubtaskState savepoint = snapshot(config(Map.of()));

        restore(
                config(Map.of(
                        "rollups.every", "PT5M,PT1H",
                        "tables.capacity.older", "5/5",
                        "window.fire-delay", "PT2S",
                        "watermark.idleness", "PT5M",
                        "latest.interval", "PT10S")),
                savepoint);
    }

    @Test
    void aSavepointThatKeptNoSettingsRestoresAndKeepsThemFromThenOn() throws Exception {
        OperatorSubtaskState empty;
        try (OneInputStreamOperatorTestHarness<SinkRecord, SinkRecord> harness =
                new OneInputStreamOperatorTestHarness<>(new PassThrough())) {
            harness.open();
            empty = harness.snapshot(1, 1);
        }
        PeriodTablesConfig other = config(Map.of("tables.shards", "3"));
        OperatorSubtaskState kept = restore(other, empty);

        assertThatThrownBy(() -> restore(config(Map.of()), kept))
                .cause()
                .hasMessageContaining("the savepoint was taken with tables.shards = '3'");
    }

    private static PeriodTablesConfig config(Map<String, String> changes) {
        Map<String, String> keys = new HashMap<>(BEFORE);
        keys.putAll(changes);
        return ConfigLoader.fromMap(keys, false);
    }

    private static OperatorSubtaskState snapshot(PeriodTablesConfig config) throws Exception {
        return restore(config, null);
    }

    /** Runs the check under {@code config}, restored from {@code savepoint} unless null; returns its snapshot. */
    private static OperatorSubtaskState restore(PeriodTablesConfig config, OperatorSubtaskState savepoint)
            throws Exception {
        try (OneInputStreamOperatorTestHarness<SinkRecord, SinkRecord> harness =
                new OneInputStreamOperatorTestHarness<>(new RedeployCheck(config))) {
            if (savepoint != null) {
                harness.initializeState(savepoint);
            }
            harness.open();
            return harness.snapshot(2, 2);
        }
    }

    /** A stateless operator: the savepoint of a release that kept no settings. */
    private static final class PassThrough
            extends org.apache.flink.streaming.api.operators.AbstractStreamOperator<SinkRecord>
            implements org.apache.flink.streaming.api.operators.OneInputStreamOperator<SinkRecord, SinkRecord> {
        @Override
        public void processElement(org.apache.flink.streaming.runtime.streamrecord.StreamRecord<SinkRecord> element) {
            output.collect(element);
        }
    }
}
