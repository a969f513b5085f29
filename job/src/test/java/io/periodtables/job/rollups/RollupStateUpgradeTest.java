package io.periodtables.job.rollups;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.Rollups;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The upgrade of a savepoint of an earlier release goes through a subtask's devices as the state
 * backend streams their keys: it never holds more than a batch of device keys at once, and moves
 * every device's buckets.
 */
class RollupStateUpgradeTest {

    private static final Instant DAY = Instant.parse("2025-06-01T00:00:00Z");
    private static final int DEVICES = 25;
    private static final int BATCH = 4;

    @Test
    void theUpgradeHoldsABatchOfDeviceKeysAtOnceAndMovesEveryDevice() throws Exception {
        PeriodTablesConfig config =
                ConfigLoader.fromMap(Map.of("tables.period", "P1D", "rollups.every", "PT1M,PT1H"), false);
        Rollups rollups = Rollups.of(config).orElseThrow();
        try (var harness = new KeyedOneInputStreamOperatorTestHarness<>(
                RollupBuckets.operator(config, rollups),
                (SinkRecord r) -> r.reading().deviceId(),
                Types.STRING)) {
            harness.setStateBackend(new HashMapStateBackend());
            harness.open();
            for (int d = 0; d < DEVICES; d++) {
                for (int second = 0; second < 180; second += 30) {
                    long t = DAY.plusSeconds(second).toEpochMilli();
                    harness.processElement(
                            SinkRecord.period(new Reading("dev-" + d, t, null, "{\"temp\":" + d + "}")), t);
                }
            }
            KeyedStateBackend<String> backend = harness.getOperator().getKeyedStateBackend();
            Map<String, Map<Long, RollupAggregate>> before = buckets(backend);
            toReleaseBefore(backend, rollups.grains());
            assertThat(buckets(backend))
                    .as("buckets in this release's layout after the move back")
                    .isEmpty();
            KeysAhead ahead = new KeysAhead();

            new RollupStateUpgrade(
                            ahead.watching(backend),
                            rollups,
                            Duration.ofMinutes(15).toMillis(),
                            BATCH)
                    .run();

            assertThat(ahead.most)
                    .as("device keys taken from the backend before one is upgraded")
                    .isLessThanOrEqualTo(BATCH);
            Map<String, Map<Long, RollupAggregate>> after = buckets(backend);
            assertThat(after.keySet())
                    .as("devices upgraded")
                    .isEqualTo(before.keySet())
                    .hasSize(DEVICES);
            after.forEach((device, buckets) -> assertThat(buckets.keySet())
                    .as(device + "'s buckets")
                    .isEqualTo(before.get(device).keySet()));
        }
    }

    /** Each device's buckets in this release's layout. */
    private static Map<String, Map<Long, RollupAggregate>> buckets(KeyedStateBackend<String> backend) throws Exception {
        MapState<Long, RollupAggregate> state = backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, RollupBuckets.bucketsDescriptor());
        List<String> devices;
        try (Stream<String> keys = backend.getKeys(RollupBuckets.BUCKETS, VoidNamespace.INSTANCE)) {
            devices = keys.toList();
        }
        Map<String, Map<Long, RollupAggregate>> all = new TreeMap<>();
        for (String device : devices) {
            backend.setCurrentKey(device);
            Map<Long, RollupAggregate> of = new TreeMap<>();
            for (Map.Entry<Long, RollupAggregate> bucket : state.entries()) {
                of.put(bucket.getKey(), bucket.getValue());
            }
            all.put(device, of);
        }
        return all;
    }

    /** Moves every bucket into the release before's state: key = start × 3 + the grain's position. */
    private static void toReleaseBefore(KeyedStateBackend<String> backend, List<Duration> grains) throws Exception {
        MapState<Long, RollupAggregate> state = backend.getPartitionedState(
                VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, RollupBuckets.bucketsDescriptor());
        MapState<Long, RollupAggregate> old = backend.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                new MapStateDescriptor<>(
                        RollupStateUpgrade.OLD_BUCKETS, LongSerializer.INSTANCE, RollupAggregate.Serializer.INSTANCE));
        for (Map.Entry<String, Map<Long, RollupAggregate>> device :
                buckets(backend).entrySet()) {
            backend.setCurrentKey(device.getKey());
            for (Map.Entry<Long, RollupAggregate> bucket : device.getValue().entrySet()) {
                Duration grain = BucketKeys.grainOf(bucket.getKey(), grains);
                old.put(BucketKeys.startOf(bucket.getKey()) * 3 + grains.indexOf(grain), bucket.getValue());
            }
            state.clear();
        }
    }

    /** Counts the device keys taken from the backend's key streams since it was last given a current key. */
    private static final class KeysAhead {
        private int since;
        private int most;

        @SuppressWarnings("unchecked")
        KeyedStateBackend<String> watching(KeyedStateBackend<String> backend) {
            return (KeyedStateBackend<String>) Proxy.newProxyInstance(
                    KeyedStateBackend.class.getClassLoader(),
                    new Class<?>[] {KeyedStateBackend.class},
                    (p, m, args) -> {
                        Object result;
                        try {
                            result = m.invoke(backend, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                        if (m.getName().equals("setCurrentKey")) {
                            since = 0;
                        } else if (m.getName().equals("getKeys")) {
                            return ((Stream<?>) result).peek(key -> most = Math.max(most, ++since));
                        }
                        return result;
                    });
        }
    }
}
