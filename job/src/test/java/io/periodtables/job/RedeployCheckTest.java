package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.SinkRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.core.memory.DataOutputSerializer;
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
 * restore that changes only what may change (grains, capacity, timings, the latest table), one
 * that spells a kept value another way, and one of a savepoint that kept no settings (an earlier
 * release) or kept them as written runs.
 */
class RedeployCheckTest {

    private static final Map<String, String> BEFORE = Map.of(
            "tables.prefix", "redeploy",
            "tables.period", "PT1H",
            "tables.shards", "2",
            "rollups.every", "PT1M,PT1H",
            "archive.path", "file:///tmp/redeploy-archive");

    private static final Map<String, String> KINESIS = Map.of(
            "source", "kinesis",
            "kinesis.stream-arn", "arn:aws:kinesis:us-east-1:000000000000:stream/readings",
            "aws.endpoint", "http://127.0.0.1:4567");

    /**
     * The restored shard positions are the savepoint's stream's: another stream, or the same ARN
     * reached in another region or through another endpoint, is refused, never read from nowhere.
     */
    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "kinesis.stream-arn|arn:aws:kinesis:us-east-1:000000000000:stream/readings"
                        + "|arn:aws:kinesis:us-east-1:000000000000:stream/readings-2",
                "aws.region|us-east-1|eu-west-1",
                "kinesis.endpoint|http://127.0.0.1:4567|http://127.0.0.1:4568",
            })
    void anotherInputStreamIsRefusedInOneLineThatSaysToStartFromATimestamp(String key, String was, String now)
            throws Exception {
        OperatorSubtaskState savepoint = snapshot(config(KINESIS));
        Map<String, String> changed = new HashMap<>(KINESIS);
        changed.put(key, now);

        assertThatThrownBy(() -> restore(config(changed), savepoint))
                .satisfies(e -> assertThat(ThrowableClassifier.getThrowableType(e))
                        .isEqualTo(ThrowableType.NonRecoverableError))
                .cause()
                .hasMessage("Invalid configuration: " + key + " = '" + now + "' cannot change across a restore: the"
                        + " savepoint was taken with " + key + " = '" + was + "' and holds positions in that stream;"
                        + " set it back, or start without the savepoint from kinesis.initial-position AT_TIMESTAMP"
                        + " (docs/operations.md, What may change across a redeploy)");
    }

    /** The endpoint in effect is compared, however it is set; a switch of source is not the stream's to refuse. */
    @Test
    void theSameStreamSetAnotherWayAndASwitchOfSourceRestore() throws Exception {
        OperatorSubtaskState savepoint = snapshot(config(KINESIS));
        Map<String, String> sameEndpoint = new HashMap<>(KINESIS);
        sameEndpoint.remove("aws.endpoint");
        sameEndpoint.put("kinesis.endpoint", "http://127.0.0.1:4567");
        restore(config(sameEndpoint), savepoint);

        restore(config(Map.of()), savepoint); // the generator: allowNonRestoredState drops the source's state
        restore(config(KINESIS), snapshot(config(Map.of())));
    }

    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "tables.prefix|redeploy|other",
                "tables.period|PT1H|P1D",
                "tables.zone|UTC|Europe/Berlin",
                "tables.shards|2|3",
                "rollups.fields|(unset)|temp",
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

    @ParameterizedTest(name = "{0}: {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "tables.zone|UTC|Etc/UTC",
                "tables.zone|UTC|Z",
                "tables.period|PT1H|PT60M",
                "tables.shards|2|02",
                "archive.path|file:///tmp/redeploy-archive|file:///tmp/redeploy-archive/",
                "archive.path|file:///tmp/redeploy-archive|file:/tmp//redeploy-archive",
                "archive.path|file:///tmp/redeploy-archive|FILE:///tmp/./redeploy-archive",
                "rollups.fields|temperature,humidity|temperature, humidity",
                "rollups.fields|temperature,humidity|humidity,temperature",
                "archive.columns|temperature:double,status:string|temperature:DOUBLE, status:string",
                "late.policy|late-table|LATE_TABLE",
            })
    void theSameValueSpelledAnotherWayRestores(String key, String was, String now) throws Exception {
        OperatorSubtaskState savepoint = snapshot(config(Map.of(key, was)));

        restore(config(Map.of(key, now)), savepoint);
    }

    @Test
    void aRefusalShowsBothValuesParsed() throws Exception {
        OperatorSubtaskState savepoint = snapshot(config(Map.of("tables.period", "PT60M", "tables.zone", "Etc/UTC")));

        assertThatThrownBy(
                        () -> restore(config(Map.of("tables.period", "pt120m", "tables.zone", "Etc/UTC")), savepoint))
                .cause()
                .hasMessageStartingWith("Invalid configuration: tables.period = 'PT2H' cannot change across a restore:"
                        + " the savepoint was taken with tables.period = 'PT1H';");
    }

    @Test
    void theSettingsASavepointKeptAsWrittenAreJudgedByWhatTheyMean() throws Exception {
        // the release before kept each setting's text as written
        Map<String, String> asWritten = new HashMap<>();
        asWritten.put("tables.prefix", "redeploy");
        asWritten.put("tables.period", "PT60M");
        asWritten.put("tables.zone", "Etc/UTC");
        asWritten.put("tables.shards", "2");
        asWritten.put("rollups.fields", "temperature, humidity");
        asWritten.put("latest.enabled", "false");
        asWritten.put("late.policy", "late-table");
        asWritten.put("archive.path", "file:///tmp/redeploy-archive/");
        asWritten.put("archive.columns", "(unset)");
        OperatorSubtaskState savepoint = keptAsWritten(asWritten);

        restore(config(Map.of("rollups.fields", "temperature,humidity")), savepoint);
        assertThatThrownBy(() -> restore(config(Map.of("rollups.fields", "temperature")), savepoint))
                .cause()
                .hasMessageStartingWith("Invalid configuration: rollups.fields = 'temperature' cannot change across a"
                        + " restore: the savepoint was taken with rollups.fields = 'temperature,humidity';");
    }

    @ParameterizedTest(name = "latest.enabled {0} -> {1}")
    @CsvSource({"false,true", "true,false"})
    void theLatestTableMayBeTurnedOnOrOff(String was, String now) throws Exception {
        OperatorSubtaskState savepoint = snapshot(config(Map.of("latest.enabled", was)));

        restore(config(Map.of("latest.enabled", now)), savepoint);
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

    /** The snapshot of a check that kept {@code settings} in the layout of the release before: as written. */
    private static OperatorSubtaskState keptAsWritten(Map<String, String> settings) throws Exception {
        DataOutputSerializer payload = new DataOutputSerializer(256);
        payload.writeInt(settings.size());
        for (Map.Entry<String, String> setting : new java.util.TreeMap<>(settings).entrySet()) {
            payload.writeUTF(setting.getKey());
            payload.writeUTF(setting.getValue());
        }
        DataOutputSerializer versioned = new DataOutputSerializer(256);
        versioned.writeInt(1); // SimpleVersionedSerialization: the version, the length, the bytes
        versioned.writeInt(payload.length());
        versioned.write(payload.getCopyOfBuffer());
        byte[] bytes = versioned.getCopyOfBuffer();
        try (OneInputStreamOperatorTestHarness<SinkRecord, SinkRecord> harness =
                new OneInputStreamOperatorTestHarness<>(new PassThrough() {
                    @Override
                    public void initializeState(org.apache.flink.runtime.state.StateInitializationContext context)
                            throws Exception {
                        super.initializeState(context);
                        context.getOperatorStateStore()
                                .getUnionListState(new ListStateDescriptor<>(
                                        "redeploy-settings", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO))
                                .update(List.of(bytes));
                    }
                })) {
            harness.open();
            return harness.snapshot(1, 1);
        }
    }

    /** A stateless operator: the savepoint of a release that kept no settings. */
    private static class PassThrough extends org.apache.flink.streaming.api.operators.AbstractStreamOperator<SinkRecord>
            implements org.apache.flink.streaming.api.operators.OneInputStreamOperator<SinkRecord, SinkRecord> {
        @Override
        public void processElement(org.apache.flink.streaming.runtime.streamrecord.StreamRecord<SinkRecord> element) {
            output.collect(element);
        }
    }
}
