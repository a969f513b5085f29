package io.periodtables.job.rollups;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.Rollups;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The rollups operator's state across a restore: {@code rollups.every} changed between the
 * savepoint and the restore (a kept grain carries on, a dropped one's buckets are dropped, a new
 * one starts at the restore), and the savepoint of the release before, whose state layout differs.
 *
 * <p>Every run: dev-1 reads every 10 s from 00:00:00 to 00:09:50 with {@code PT1M,PT1H}; the
 * savepoint is taken with the watermark at 00:08, so the 00:08 and 00:09 minutes are not written
 * yet. The restored run reads 00:10:00 to 00:19:50 and the 00:09:50 reading again (an input
 * duplicate across the restore), then the watermark closes the day.
 */
class RollupRestoreTest {

    private static final Instant DAY = Instant.parse("2025-06-01T00:00:00Z");
    private static final String BEFORE = "PT1M,PT1H";
    /** The savepoints of the release before this one, written by {@link #writeTheSavepointsOfThisRelease}. */
    private static final String RELEASE_BEFORE = "rollup-state/release-before-%s.snapshot";
    /** The same after a drained stop ({@link #drainedRun}): its revive timers are waiting. */
    private static final String DRAINED_RELEASE_BEFORE = "rollup-state/drained-release-before-%s.snapshot";

    @ParameterizedTest(name = "PT1M,PT1H -> {0}")
    @ValueSource(strings = {"PT1H", "PT5M,PT1H", "PT1H,PT1M"})
    void changingTheGrainsKeepsAKeptGrainDropsADroppedOneAndStartsANewOneAtTheRestore(String after) throws Exception {
        OperatorSubtaskState savepoint = firstRun("rocksdb", false);
        Map<String, Long> written = restoredRun("rocksdb", after, savepoint, List.of("dev-1"));

        Map<String, Long> expected = new TreeMap<>();
        expected.put("dev-1 PT1H#2025-06-01T00:00:00.000Z", 120L); // all of them, the duplicate once
        if (after.contains("PT5M")) {
            // a new grain starts at the restore: its buckets of the restored run's readings
            expected.put("dev-1 PT5M#2025-06-01T00:10:00.000Z", 30L);
            expected.put("dev-1 PT5M#2025-06-01T00:15:00.000Z", 30L);
        }
        if (after.contains("PT1M")) {
            expected.putAll(minutes("dev-1", 8, 20));
        }
        assertThat(written).as("the buckets the restored run wrote").isEqualTo(expected);
    }

    @Test
    void aDroppedGrainsBucketsGoAtTheReviveAfterADrainedStop() throws Exception {
        OperatorSubtaskState savepoint = drainedRun("rocksdb");
        try (var harness = harness("PT1H", "rocksdb")) {
            harness.initializeState(savepoint);
            harness.open();
            assertThat(grainsHeld(harness))
                    .as("grains of dev-1's buckets, restored")
                    .containsExactly(60L, 3600L);
            harness.setProcessingTime(harness.getProcessingTime() + 120_000); // the revive sets the timers again
            assertThat(grainsHeld(harness))
                    .as("grains of dev-1's buckets after the revive")
                    .containsExactly(3600L);
            assertThat(harness.extractOutputValues()).as("written").isEmpty();
        }
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void theRevivesOfADrainedStopsSavepointOfTheReleaseBeforeSetTheTimersAgain(String backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(
                OperatorSnapshotUtil.getResourceFilename(String.format(DRAINED_RELEASE_BEFORE, backend)));
        try (var harness = harness("PT1H", backend)) {
            harness.initializeState(savepoint);
            harness.open();
            harness.setProcessingTime(harness.getProcessingTime() + 120_000); // the revive
            assertThat(grainsHeld(harness))
                    .as("grains of dev-1's buckets after the revive")
                    .containsExactly(3600L);
            harness.processWatermark(DAY.plusSeconds(2 * 86_400).toEpochMilli()); // the day closes
            assertThat(grainsHeld(harness))
                    .as("grains of dev-1's buckets after its period closed")
                    .isEmpty();
        }
    }

    @ParameterizedTest(name = "window.allowed-lateness PT5M -> {0}")
    @ValueSource(strings = {"PT1M", "PT30M"})
    void aDeviceSilentAfterARestoreUnderAnotherLatenessHasNoStateOnceItsPeriodCloses(String lateness) throws Exception {
        OperatorSubtaskState savepoint = firstRun("hashmap", false); // under the default PT5M
        Duration after = Duration.parse(lateness);
        long end = DAY.plusSeconds(86_400).toEpochMilli();
        try (var harness = harness(BEFORE, "hashmap", lateness)) {
            harness.initializeState(savepoint);
            harness.open();
            harness.processWatermark(
                    end - 1 + Math.min(after.toMillis(), Duration.ofMinutes(5).toMillis()) - 1);
            assertThat(harness.numKeyedStateEntries())
                    .as("state entries before the period closes")
                    .isPositive();
            harness.processWatermark(end - 1 + after.toMillis() - 1);
            assertThat(harness.numKeyedStateEntries())
                    .as("state entries a moment before the period closes under " + lateness)
                    .isPositive();

            harness.processWatermark(end - 1 + after.toMillis());

            assertThat(harness.numKeyedStateEntries())
                    .as("state entries once it closed")
                    .isZero();
            assertThat(written(harness.extractOutputValues()))
                    .as("dev-1's hour, written whole before its state went")
                    .containsEntry("dev-1 PT1H#2025-06-01T00:00:00.000Z", 60L);
            harness.processWatermark(end + Duration.ofHours(1).toMillis()); // the old lateness's timers fire
            assertThat(harness.numEventTimeTimers()).as("timers left").isZero();
        }
    }

    @Test
    void theSavepointOfTheReleaseBeforeKeptNoLatenessAndItsSilentDevicesStateGoesAtTheClose() throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(
                OperatorSnapshotUtil.getResourceFilename(String.format(RELEASE_BEFORE, "hashmap")));
        long end = DAY.plusSeconds(86_400).toEpochMilli();
        try (var harness = harness(BEFORE, "hashmap", "PT1M")) {
            harness.initializeState(savepoint);
            harness.open();

            harness.processWatermark(end - 1 + Duration.ofMinutes(1).toMillis());

            assertThat(harness.numKeyedStateEntries())
                    .as("state entries once the day closed")
                    .isZero();
        }
    }

    /** {@link #BEFORE}'s run of dev-1's first ten minutes, then a drained stop: its savepoint. */
    private static OperatorSubtaskState drainedRun(String backend) throws Exception {
        try (var harness = harness(BEFORE, backend)) {
            harness.open();
            for (int second = 0; second < 600; second += 10) {
                reading(harness, "dev-1", second);
            }
            harness.processWatermark(Long.MAX_VALUE); // the end of the input: written, state kept
            return harness.snapshot(1, harness.getProcessingTime());
        }
    }

    /** The grains (in seconds) of dev-1's buckets. */
    private static java.util.Set<Long> grainsHeld(
            KeyedOneInputStreamOperatorTestHarness<String, SinkRecord, SinkRecord> harness) throws Exception {
        KeyedStateBackend<String> state = harness.getOperator().getKeyedStateBackend();
        state.setCurrentKey("dev-1");
        java.util.Set<Long> grains = new java.util.TreeSet<>();
        for (long key : state.getPartitionedState(
                        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, RollupBuckets.bucketsDescriptor())
                .keys()) {
            grains.add(Math.floorMod(key, BucketKeys.GRAIN_SECONDS));
        }
        return grains;
    }

    @ParameterizedTest(name = "on {0}")
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void theSavepointOfTheReleaseBeforeRestoresAndItsObsoleteStateGoes(String backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(
                OperatorSnapshotUtil.getResourceFilename(String.format(RELEASE_BEFORE, backend)));
        Map<String, Long> written = restoredRun(backend, BEFORE, savepoint, List.of("dev-1", "dev-2"));

        Map<String, Long> expected = new TreeMap<>();
        expected.put("dev-1 PT1H#2025-06-01T00:00:00.000Z", 120L);
        expected.putAll(minutes("dev-1", 8, 20));
        // dev-2's sort keys are in the layout of the release before that (rollup-seen, rollup-newest)
        expected.put("dev-2 PT1H#2025-06-01T00:00:00.000Z", 60L);
        expected.putAll(minutes("dev-2", 8, 10));
        assertThat(written).as("the buckets the restored run wrote").isEqualTo(expected);
    }

    /** {@code <device> PT1M#<minute>} → 6 readings for each minute from {@code from} to before {@code to}. */
    private static Map<String, Long> minutes(String device, int from, int to) {
        Map<String, Long> minutes = new TreeMap<>();
        for (int m = from; m < to; m++) {
            minutes.put(String.format("%s PT1M#2025-06-01T00:%02d:00.000Z", device, m), 6L);
        }
        return minutes;
    }

    /**
     * The first run, with {@code PT1M,PT1H}: its savepoint. With {@code olderLayout}, dev-2 reads
     * the same and its sort keys and newest reading are then moved into the state the release
     * before the one that wrote the savepoint kept them in ({@code rollup-seen}, {@code
     * rollup-newest}), which that one restored and never read.
     */
    private static OperatorSubtaskState firstRun(String backend, boolean olderLayout) throws Exception {
        try (var harness = harness(BEFORE, backend)) {
            harness.open();
            for (int second = 0; second < 600; second += 10) {
                reading(harness, "dev-1", second);
                if (olderLayout) {
                    reading(harness, "dev-2", second);
                }
            }
            harness.processWatermark(DAY.plusSeconds(8 * 60).toEpochMilli());
            if (olderLayout) {
                KeyedStateBackend<String> state = harness.getOperator().getKeyedStateBackend();
                state.setCurrentKey("dev-2");
                MapState<Long, List<String>> recent = state.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new MapStateDescriptor<>(
                                "rollup-recent-keys",
                                LongSerializer.INSTANCE,
                                new ListSerializer<>(StringSerializer.INSTANCE)));
                MapState<String, Boolean> seen = state.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new MapStateDescriptor<>("rollup-seen", StringSerializer.INSTANCE, BooleanSerializer.INSTANCE));
                for (List<String> ofMinute : recent.values()) {
                    for (String sk : ofMinute) {
                        seen.put(sk, Boolean.TRUE);
                    }
                }
                recent.clear();
                MapState<Long, Long> newest = state.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new MapStateDescriptor<>(
                                "rollup-newest-per-period", LongSerializer.INSTANCE, LongSerializer.INSTANCE));
                ValueState<Long> newestOfDevice = state.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        new ValueStateDescriptor<>("rollup-newest", LongSerializer.INSTANCE));
                newestOfDevice.update(newest.get(DAY.toEpochMilli()));
                newest.clear();
            }
            return harness.snapshot(1, harness.getProcessingTime());
        }
    }

    /** The restored run with {@code every}: the last version of each bucket it wrote, by device and sort key. */
    private static Map<String, Long> restoredRun(
            String backend, String every, OperatorSubtaskState savepoint, List<String> resending) throws Exception {
        try (var harness = harness(every, backend)) {
            harness.initializeState(savepoint);
            harness.open();
            for (int second = 600; second < 1200; second += 10) {
                reading(harness, "dev-1", second);
            }
            for (String device : resending) {
                reading(harness, device, 590); // the input holds it twice: counted before the savepoint
            }
            harness.processWatermark(DAY.plusSeconds(2 * 86_400).toEpochMilli()); // the day closes
            KeyedStateBackend<String> state = harness.getOperator().getKeyedStateBackend();
            for (String earlier :
                    List.of("rollup-buckets", "rollup-refined", "rollup-recent-keys", "rollup-seen", "rollup-newest")) {
                try (var devices = state.getKeys(earlier, VoidNamespace.INSTANCE)) {
                    assertThat(devices.count())
                            .as("devices with state of an earlier release in %s", earlier)
                            .isZero();
                }
            }
            return written(harness.extractOutputValues());
        }
    }

    /**
     * Writes the savepoints a test of the next release restores ({@code -Drollup.snapshots=<dir>},
     * then copied into {@code src/test/resources/rollup-state}): the first run's and the drained
     * run's, on each backend.
     */
    @Test
    @EnabledIfSystemProperty(named = "rollup.snapshots", matches = ".+")
    void writeTheSavepointsOfThisRelease() throws Exception {
        Path dir = Path.of(System.getProperty("rollup.snapshots"));
        Files.createDirectories(dir.resolve("rollup-state"));
        for (String backend : List.of("hashmap", "rocksdb")) {
            OperatorSnapshotUtil.writeStateHandle(
                    firstRun(backend, true),
                    dir.resolve(String.format(RELEASE_BEFORE, backend)).toString());
            OperatorSnapshotUtil.writeStateHandle(
                    drainedRun(backend),
                    dir.resolve(String.format(DRAINED_RELEASE_BEFORE, backend)).toString());
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, SinkRecord, SinkRecord> harness(
            String every, String backend) throws Exception {
        return harness(every, backend, "PT5M");
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, SinkRecord, SinkRecord> harness(
            String every, String backend, String lateness) throws Exception {
        PeriodTablesConfig config = ConfigLoader.fromMap(
                Map.of(
                        "tables.period",
                        "P1D",
                        "rollups.every",
                        every,
                        "rollups.exact-within",
                        "PT15M",
                        "window.allowed-lateness",
                        lateness),
                false);
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(
                RollupBuckets.operator(config, Rollups.of(config).orElseThrow()),
                record -> record.reading().deviceId(),
                Types.STRING);
        harness.setStateBackend(
                backend.equals("rocksdb") ? new EmbeddedRocksDBStateBackend(false) : new HashMapStateBackend());
        return harness;
    }

    /** {@code device}'s reading {@code second} into the day. */
    private static void reading(
            KeyedOneInputStreamOperatorTestHarness<String, SinkRecord, SinkRecord> harness, String device, int second)
            throws Exception {
        long t = DAY.plusSeconds(second).toEpochMilli();
        harness.processElement(SinkRecord.period(new Reading(device, t, null, "{\"temp\":" + second + "}")), t);
    }

    private static Map<String, Long> written(List<SinkRecord> records) throws Exception {
        Map<String, Long> last = new TreeMap<>();
        for (SinkRecord record : records) {
            Map<String, AttributeValue> item = ItemAttributes.ofJsonObject(record.itemJson());
            last.put(
                    item.get(ItemAttributes.PK).s() + " "
                            + item.get(ItemAttributes.SK).s(),
                    Long.parseLong(item.get(Rollups.READINGS).n()));
        }
        return last;
    }
}
