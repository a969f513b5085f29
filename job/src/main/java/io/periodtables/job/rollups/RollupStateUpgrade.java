package io.periodtables.job.rollups;

import io.periodtables.core.item.Rollups;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.Period;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.util.function.FunctionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves the rollups state of a savepoint of an earlier release into this release's layout when
 * the operator is restored, and empties what it replaces; a state name is the version of its
 * layout. A savepoint of this release holds none of the old names with entries, so its restore
 * only looks them up. It goes through the devices as the state backend streams their keys,
 * holding at most {@value #BATCH} of them at once, never all of a subtask's.
 *
 * <ul>
 *   <li>{@code rollup-buckets} and {@code rollup-refined} (keys: bucket start × 3 + the grain's
 *       position in {@code rollups.every}) → {@value RollupBuckets#BUCKETS} and {@value
 *       RollupBuckets#REFINED} (keys: start and the grain's length). The old keys do not say which
 *       {@code rollups.every} they were taken with: they are read as of the current one, and
 *       checked against it (a position within it, a start on the grain's boundary, readings within
 *       the bucket). If any bucket fails the check, {@code rollups.every} was changed in the same
 *       redeploy as the upgrade and the positions are ambiguous: all old buckets are dropped, with
 *       a warning, and the rollups start again at the restore.
 *   <li>{@code rollup-recent-keys} (the sort keys of a minute in one list), {@code rollup-seen}
 *       (one entry per sort key) and {@code rollup-newest} (the device's newest reading) → {@value
 *       RecentSortKeys#SORT_KEYS} and {@value RecentSortKeys#NEWEST}: the sort keys within {@code
 *       rollups.exact-within} of their period's newest reading are kept, so a duplicate that
 *       straddles the upgrade is counted once.
 *   <li>A revive timer of a drained stop ({@link #nameOldRevives}) was told apart from the
 *       catch-up timers by its time alone, 1 ms past a whole second; {@value RollupBuckets#REVIVE}
 *       now names it.
 * </ul>
 */
final class RollupStateUpgrade {
    private static final Logger LOG = LoggerFactory.getLogger(RollupStateUpgrade.class);

    static final String OLD_BUCKETS = "rollup-buckets";
    static final String OLD_REFINED = "rollup-refined";
    static final String OLD_RECENT = "rollup-recent-keys";
    static final String OLD_SEEN = "rollup-seen";
    static final String OLD_NEWEST = "rollup-newest";
    /** An old revive timer's processing time: 1 ms past a whole second. */
    private static final long OLD_REVIVE_MILLIS = 1;
    /** The old bucket keys: start × this + the grain's position. */
    private static final int OLD_GRAINS = 3;

    /** The most device keys the upgrade holds at once. */
    static final int BATCH = 10_000;

    private final KeyedStateBackend<String> backend;
    private final Rollups rollups;
    private final long exactWithin;
    private final int batch;

    RollupStateUpgrade(KeyedStateBackend<String> backend, Rollups rollups, long exactWithin) {
        this(backend, rollups, exactWithin, BATCH);
    }

    @VisibleForTesting
    RollupStateUpgrade(KeyedStateBackend<String> backend, Rollups rollups, long exactWithin, int batch) {
        this.backend = backend;
        this.rollups = rollups;
        this.exactWithin = exactWithin;
        this.batch = batch;
    }

    /**
     * Names the revive timers {@code timers} restored from a savepoint of the release before in
     * {@value RollupBuckets#REVIVE}, so they revive as this release's do; called once the timers
     * are restored (after {@link #run}).
     */
    void nameOldRevives(InternalTimerService<VoidNamespace> timers) throws Exception {
        ValueState<Long> revive = state(RollupBuckets.reviveDescriptor());
        timers.forEachProcessingTimeTimer((namespace, timestamp) -> {
            if (timestamp % 1000 == OLD_REVIVE_MILLIS) {
                revive.update(timestamp); // the device is the current key while its timers are visited
            }
        });
    }

    void run() throws Exception {
        upgradeBuckets();
        upgradeSortKeys();
    }

    private void upgradeBuckets() throws Exception {
        if (!hasDevices(OLD_BUCKETS, OLD_REFINED)) {
            return;
        }
        MapState<Long, RollupAggregate> old = state(
                new MapStateDescriptor<>(OLD_BUCKETS, LongSerializer.INSTANCE, RollupAggregate.Serializer.INSTANCE));
        MapState<Long, Boolean> oldRefined =
                state(new MapStateDescriptor<>(OLD_REFINED, LongSerializer.INSTANCE, BooleanSerializer.INSTANCE));
        MapState<Long, RollupAggregate> buckets = state(RollupBuckets.bucketsDescriptor());
        MapState<Long, Boolean> refined = state(RollupBuckets.refinedDescriptor());
        String mismatch;
        // read only, so the backend's key stream stays open; one device at a time (not an iterator,
        // which may take a whole key group ahead)
        try (Stream<String> devices = backend.getKeys(OLD_BUCKETS, VoidNamespace.INSTANCE)) {
            mismatch = devices.map(FunctionUtils.uncheckedFunction(device -> {
                        backend.setCurrentKey(device);
                        for (Map.Entry<Long, RollupAggregate> bucket : old.entries()) {
                            String why = mismatch(bucket.getKey(), bucket.getValue());
                            if (why != null) {
                                return device + "'s bucket " + why;
                            }
                        }
                        return null;
                    }))
                    .filter(Objects::nonNull)
                    .findFirst()
                    .orElse(null);
        }
        boolean keep = mismatch == null;
        long[] moved = {0};
        DeviceStep step = device -> {
            if (keep) {
                for (Map.Entry<Long, RollupAggregate> bucket : old.entries()) {
                    buckets.put(newKey(bucket.getKey()), bucket.getValue());
                    moved[0]++;
                }
                for (Long key : oldRefined.keys()) {
                    refined.put(newKey(key), Boolean.TRUE);
                }
            }
            old.clear();
            oldRefined.clear();
        };
        long devices = forEachDevice(OLD_BUCKETS, step) + forEachDevice(OLD_REFINED, step);
        if (keep) {
            LOG.info(
                    "Rollups: {} buckets of {} devices of a savepoint of an earlier release upgraded, "
                            + "as of rollups.every={}",
                    moved[0],
                    devices,
                    rollups.grains());
        } else {
            LOG.warn(
                    "Rollups: the savepoint of an earlier release holds buckets of another rollups.every than {} "
                            + "({}): its buckets of {} devices are dropped and the open periods' rollups count "
                            + "the readings from the restore on. Change rollups.every in a redeploy after the upgrade.",
                    rollups.grains(),
                    mismatch,
                    devices);
        }
    }

    /** Why the old bucket {@code key} is not a bucket of the current grains, or null when it is. */
    private String mismatch(long key, RollupAggregate aggregate) {
        int position = (int) Math.floorMod(key, (long) OLD_GRAINS);
        long start = Math.floorDiv(key, (long) OLD_GRAINS);
        if (position >= rollups.grains().size()) {
            return "of grain position " + position;
        }
        Duration grain = rollups.grains().get(position);
        Period period = rollups.calendar().periodOf(start);
        long end = Rollups.bucketEnd(period, grain, start);
        if (Rollups.bucketStart(period, grain, start) != start || !aggregate.within(start, end)) {
            return Rollups.sortKey(grain, start) + " (position " + position + ") is not one of " + grain;
        }
        return null;
    }

    private long newKey(long oldKey) {
        int position = (int) Math.floorMod(oldKey, (long) OLD_GRAINS);
        return BucketKeys.key(
                Math.floorDiv(oldKey, (long) OLD_GRAINS), rollups.grains().get(position));
    }

    private void upgradeSortKeys() throws Exception {
        if (!hasDevices(OLD_RECENT, OLD_SEEN, OLD_NEWEST)) {
            return;
        }
        MapState<Long, List<String>> oldRecent = state(new MapStateDescriptor<>(
                OLD_RECENT, LongSerializer.INSTANCE, new ListSerializer<>(StringSerializer.INSTANCE)));
        MapState<String, Boolean> oldSeen =
                state(new MapStateDescriptor<>(OLD_SEEN, StringSerializer.INSTANCE, BooleanSerializer.INSTANCE));
        ValueState<Long> oldNewest = state(new ValueStateDescriptor<>(OLD_NEWEST, LongSerializer.INSTANCE));
        MapState<Long, Long> newest = state(RecentSortKeys.newestDescriptor());
        RecentSortKeys.ByMinute byMinute = RecentSortKeys.byMinute(backend);
        RecentSortKeys window = new RecentSortKeys(byMinute, newest, exactWithin);
        long[] kept = {0};
        long[] dropped = {0};
        DeviceStep step = device -> {
            List<String> sortKeys = new ArrayList<>();
            oldSeen.keys().forEach(sortKeys::add);
            oldRecent.values().forEach(sortKeys::addAll);
            // each period's newest reading: the newest of its sort keys, and the device's newest of old
            Map<Long, Long> newestOf = new HashMap<>();
            Long deviceNewest = oldNewest.value();
            if (deviceNewest != null) {
                newestOf.put(rollups.calendar().periodOf(deviceNewest).startMillis(), deviceNewest);
            }
            for (String sk : sortKeys) {
                long t = WriteSharding.eventMillisOf(sk);
                newestOf.merge(rollups.calendar().periodOf(t).startMillis(), t, Math::max);
            }
            for (Map.Entry<Long, Long> period : newestOf.entrySet()) {
                Long known = newest.get(period.getKey());
                if (known == null || known < period.getValue()) {
                    newest.put(period.getKey(), period.getValue());
                } else {
                    period.setValue(known);
                }
            }
            for (String sk : sortKeys) {
                long t = WriteSharding.eventMillisOf(sk);
                if (window.within(t, newestOf.get(rollups.calendar().periodOf(t).startMillis()))) {
                    byMinute.add(RecentSortKeys.minuteOf(t), sk);
                    kept[0]++;
                } else {
                    dropped[0]++;
                }
            }
            oldSeen.clear();
            oldRecent.clear();
            oldNewest.clear();
        };
        long devices =
                forEachDevice(OLD_RECENT, step) + forEachDevice(OLD_SEEN, step) + forEachDevice(OLD_NEWEST, step);
        LOG.info(
                "Rollups: the sort keys of {} devices of a savepoint of an earlier release upgraded: "
                        + "{} kept, {} out of rollups.exact-within dropped",
                devices,
                kept[0],
                dropped[0]);
    }

    /** Whether any of {@code states} has entries (restored with the savepoint; never registered otherwise). */
    private boolean hasDevices(String... states) {
        for (String state : states) {
            try (Stream<String> keys = backend.getKeys(state, VoidNamespace.INSTANCE)) {
                if (keys.findAny().isPresent()) {
                    return true;
                }
            }
        }
        return false;
    }

    /** What the upgrade does to one device, the current key; it empties the device's old state. */
    @FunctionalInterface
    private interface DeviceStep {
        void upgrade(String device) throws Exception;
    }

    /**
     * Runs {@code step} on every device with entries in {@code state}, holding at most a batch of
     * device keys at once: a backend's key stream may not stay open while the state changes, and as
     * {@code step} empties each device's old state, a new stream's first keys are the devices still
     * to do. Returns how many devices it upgraded.
     */
    private long forEachDevice(String state, DeviceStep step) throws Exception {
        long devices = 0;
        while (true) {
            List<String> next = new ArrayList<>();
            try (Stream<String> keys = backend.getKeys(state, VoidNamespace.INSTANCE)) {
                keys.limit(batch).forEach(next::add);
            }
            if (next.isEmpty()) {
                return devices;
            }
            for (String device : next) {
                backend.setCurrentKey(device);
                step.upgrade(device);
            }
            devices += next.size();
        }
    }

    private <S extends org.apache.flink.api.common.state.State> S state(
            org.apache.flink.api.common.state.StateDescriptor<S, ?> descriptor) throws Exception {
        return backend.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }
}
