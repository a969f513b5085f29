package io.periodtables.job.rollups;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.Rollups;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.io.IOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The rollups operator's state on RocksDB, the only backend Managed Service for Apache Flink runs:
 * per device it stays bounded while a daily period fills (it does not keep a key per reading of
 * the period), it is gone once the period closes, also after a drained stop and a resume, and an
 * input duplicate within {@code rollups.exact-within} is counted once.
 */
class RollupStateTest {

    private static final Instant DAY = Instant.parse("2025-06-01T00:00:00Z");

    private final PeriodTablesConfig config = ConfigLoader.fromMap(
            Map.of("tables.period", "P1D", "rollups.every", "PT1H", "rollups.exact-within", "PT15M"), false);

    @Test
    void stateOfADeviceStaysFlatWhileItsDailyPeriodFillsAndGoesWhenItCloses() throws Exception {
        // a reading every 2 s: the sort keys of 15 minutes (rollups.exact-within), plus the minute
        // before a prune, are 480 entries; the rest is a bucket and a timer per started hour, a
        // period timer
        long bound = (15 + 1) * 60 / 2 + 20;
        try (var harness = harness()) {
            harness.open();
            for (int second = 0; second < 3 * 3600; second += 2) {
                reading(harness, "dev-1", second, "\"temp\":" + (second % 50));
                if (second % 600 == 0) {
                    assertThat(entries(harness))
                            .as("entries after %s s", second)
                            .isLessThanOrEqualTo(bound);
                }
            }
            assertThat(entries(harness)).as("entries after 3 h").isLessThanOrEqualTo(bound);

            harness.processWatermark(DAY.plusSeconds(86_400 + 300).toEpochMilli());
            assertThat(entries(harness)).as("entries after the period closed").isZero();
        }
    }

    @Test
    void aDrainedStopKeepsTheStateAndTheResumedRunStillDropsItWhenThePeriodCloses() throws Exception {
        OperatorSubtaskState savepoint;
        try (var harness = harness()) {
            harness.open();
            for (int second = 0; second < 600; second++) {
                reading(harness, "dev-1", second, "\"temp\":1");
            }
            harness.processWatermark(Long.MAX_VALUE); // the end of the input: buckets written, state kept
            assertThat(entries(harness)).isPositive();
            savepoint = harness.snapshot(1, harness.getProcessingTime());
        }
        try (var resumed = harness()) {
            resumed.initializeState(savepoint);
            resumed.open();
            resumed.setProcessingTime(resumed.getProcessingTime() + 120_000);
            // the device stays silent; the job's watermark goes on past its period's close
            resumed.processWatermark(DAY.plusSeconds(86_400 + 300).toEpochMilli());
            assertThat(entries(resumed)).as("entries of a silent device").isZero();
        }
    }

    @Test
    void aDuplicateWithinExactWithinCountsOnceOneFurtherBehindCountsAgain() throws Exception {
        try (var harness = harness()) {
            harness.open();
            for (int second = 0; second < 3600; second += 2) {
                reading(harness, "dev-1", second, "\"temp\":1");
            }
            reading(harness, "dev-1", 3590, "\"temp\":1"); // 10 s behind: a duplicate, counted once
            reading(harness, "dev-1", 0, "\"temp\":1"); // an hour behind: its key is gone
            harness.processWatermark(DAY.plusSeconds(7200).toEpochMilli());
            assertThat(readingsOf(harness.extractOutputValues(), "PT1H#2025-06-01T00:00:00.000Z"))
                    .isEqualTo(1801);
        }
    }

    @Test
    void aDuplicateIsJudgedAgainstItsOwnPeriodWhicheverPeriodsWindowFiresFirst() throws Exception {
        PeriodTablesConfig hourly = ConfigLoader.fromMap(
                Map.of("tables.period", "PT1H", "rollups.every", "PT1H", "rollups.exact-within", "PT15M"), false);
        try (var harness = harness(hourly)) {
            harness.open();
            element(harness, 50 * 60); // 00:50, period 00
            element(harness, 90 * 60); // 01:30, period 01: its window fired before 00's next batch
            element(harness, 50 * 60); // 00:50 again, the same reading: within 15 min of 00's newest
            harness.processWatermark(DAY.plusSeconds(3 * 3600).toEpochMilli());
            assertThat(readingsOf(harness.extractOutputValues(), "PT1H#2025-06-01T00:00:00.000Z"))
                    .as("the 00:00 bucket counts the reading its period table stores once")
                    .isEqualTo(1);
        }
    }

    private static void element(
            KeyedOneInputStreamOperatorTestHarness<String, SinkRecord, SinkRecord> harness, int second)
            throws Exception {
        long t = DAY.plusSeconds(second).toEpochMilli();
        harness.processElement(SinkRecord.period(new Reading("dev-1", t, null, "{\"temp\":1}")), t);
    }

    private KeyedOneInputStreamOperatorTestHarness<String, SinkRecord, SinkRecord> harness() throws Exception {
        return harness(config);
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, SinkRecord, SinkRecord> harness(
            PeriodTablesConfig config) throws Exception {
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(
                RollupBuckets.operator(config, Rollups.of(config).orElseThrow()),
                record -> record.reading().deviceId(),
                Types.STRING);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend(true));
        return harness;
    }

    /** A reading {@code second} into the day, and the watermark 5 s behind it, as the source sends them. */
    private static void reading(
            KeyedOneInputStreamOperatorTestHarness<String, SinkRecord, SinkRecord> harness,
            String device,
            int second,
            String payload)
            throws Exception {
        long t = DAY.plusSeconds(second).toEpochMilli();
        harness.processElement(SinkRecord.period(new Reading(device, t, null, "{" + payload + "}")), t);
        harness.processWatermark(t - 5000);
    }

    /**
     * The state of dev-1, entry by entry: its buckets, its sort keys and the timers (RocksDB keeps
     * a map's entries and each timer apart, so this is what grows on disk).
     */
    private static long entries(KeyedOneInputStreamOperatorTestHarness<String, SinkRecord, SinkRecord> harness)
            throws Exception {
        KeyedStateBackend<String> backend = harness.getOperator().getKeyedStateBackend();
        backend.setCurrentKey("dev-1");
        long n = harness.numEventTimeTimers() + harness.numProcessingTimeTimers();
        MapState<Long, RollupAggregate> buckets = backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, RollupBuckets.bucketsDescriptor());
        for (Long bucket : buckets.keys()) {
            n++;
        }
        // the sort keys, each an entry in the namespace of its minute
        List<Long> minutes;
        try (var keysAndMinutes = backend.<Long>getKeysAndNamespaces(RecentSortKeys.SORT_KEYS)) {
            minutes = keysAndMinutes
                    .filter(k -> k.f0.equals("dev-1"))
                    .map(k -> k.f1)
                    .toList();
        }
        backend.setCurrentKey("dev-1");
        for (long minute : minutes) {
            MapState<String, Boolean> sortKeys = backend.getPartitionedState(
                    minute,
                    LongSerializer.INSTANCE,
                    new MapStateDescriptor<>(
                            RecentSortKeys.SORT_KEYS, StringSerializer.INSTANCE, BooleanSerializer.INSTANCE));
            for (String sk : sortKeys.keys()) {
                n++;
            }
        }
        return n;
    }

    /** The {@code readings} of the last item written for the bucket {@code sk}. */
    private static long readingsOf(List<SinkRecord> written, String sk) throws IOException {
        Map<String, Long> last = new HashMap<>();
        for (SinkRecord record : written) {
            Map<String, AttributeValue> item = ItemAttributes.ofJsonObject(record.itemJson());
            last.put(
                    item.get(ItemAttributes.SK).s(),
                    Long.parseLong(item.get(Rollups.READINGS).n()));
        }
        return last.getOrDefault(sk, 0L);
    }
}
