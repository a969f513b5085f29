package io.periodtables.job.rollups;

import io.periodtables.core.item.Rollups;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.Period;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves the rollups state of a savepoint of an earlier release into this release's layout when
 * the operator is restored, and empties what it replaces; a state name is the version of its
 * layout. A savepoint of this release holds none of the old names with entries, so its restore
 * only looks them up.
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

    private final KeyedStateBackend<String> backend;
    private final Rollups rollups;
    private final long exactWithin;

    RollupStateUpgrade(KeyedStateBackend<String> backend, Rollups rollups, long exactWithin) {
        this.backend = backend;
        this.rollups = rollups;
        this.exactWithin = exactWithin;
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
        List<String> bucketDevices = devicesOf(OLD_BUCKETS, OLD_REFINED);
        List<String> keyDevices = devicesOf(OLD_RECENT, OLD_SEEN, OLD_NEWEST);
        if (!bucketDevices.isEmpty()) {
            upgradeBuckets(bucketDevices);
        }
        if (!keyDevices.isEmpty()) {
            upgradeSortKeys(keyDevices);
        }
    }

    private void upgradeBuckets(List<String> devices) throws Exception {
        MapState<Long, RollupAggregate> old = state(
                new MapStateDescriptor<>(OLD_BUCKETS, LongSerializer.INSTANCE, RollupAggregate.Serializer.INSTANCE));
        MapState<Long, Boolean> oldRefined =
                state(new MapStateDescriptor<>(OLD_REFINED, LongSerializer.INSTANCE, BooleanSerializer.INSTANCE));
        MapState<Long, RollupAggregate> buckets = state(RollupBuckets.bucketsDescriptor());
        MapState<Long, Boolean> refined = state(RollupBuckets.refinedDescriptor());
        String mismatch = null;
        for (String device : devices) {
            backend.setCurrentKey(device);
            for (Map.Entry<Long, RollupAggregate> bucket : old.entries()) {
                mismatch = mismatch(bucket.getKey(), bucket.getValue());
                if (mismatch != null) {
                    mismatch = device + "'s bucket " + mismatch;
                    break;
                }
            }
            if (mismatch != null) {
                break;
            }
        }
        long moved = 0;
        for (String device : devices) {
            backend.setCurrentKey(device);
            if (mismatch == null) {
                for (Map.Entry<Long, RollupAggregate> bucket : old.entries()) {
                    buckets.put(newKey(bucket.getKey()), bucket.getValue());
                    moved++;
                }
                for (Long key : oldRefined.keys()) {
                    refined.put(newKey(key), Boolean.TRUE);
                }
            }
            old.clear();
            oldRefined.clear();
        }
        if (mismatch == null) {
            LOG.info(
                    "Rollups: {} buckets of {} devices of a savepoint of an earlier release upgraded, "
                            + "as of rollups.every={}",
                    moved,
                    devices.size(),
                    rollups.grains());
        } else {
            LOG.warn(
                    "Rollups: the savepoint of an earlier release holds buckets of another rollups.every than {} "
                            + "({}): its buckets of {} devices are dropped and the open periods' rollups count "
                            + "the readings from the restore on. Change rollups.every in a redeploy after the upgrade.",
                    rollups.grains(),
                    mismatch,
                    devices.size());
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

    private void upgradeSortKeys(List<String> devices) throws Exception {
        MapState<Long, List<String>> oldRecent = state(new MapStateDescriptor<>(
                OLD_RECENT, LongSerializer.INSTANCE, new ListSerializer<>(StringSerializer.INSTANCE)));
        MapState<String, Boolean> oldSeen =
                state(new MapStateDescriptor<>(OLD_SEEN, StringSerializer.INSTANCE, BooleanSerializer.INSTANCE));
        ValueState<Long> oldNewest = state(new ValueStateDescriptor<>(OLD_NEWEST, LongSerializer.INSTANCE));
        MapState<Long, Long> newest = state(RecentSortKeys.newestDescriptor());
        RecentSortKeys.ByMinute byMinute = RecentSortKeys.byMinute(backend);
        RecentSortKeys window = new RecentSortKeys(byMinute, newest, exactWithin);
        long kept = 0;
        long dropped = 0;
        for (String device : devices) {
            backend.setCurrentKey(device);
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
                    kept++;
                } else {
                    dropped++;
                }
            }
            oldSeen.clear();
            oldRecent.clear();
            oldNewest.clear();
        }
        LOG.info(
                "Rollups: the sort keys of {} devices of a savepoint of an earlier release upgraded: "
                        + "{} kept, {} out of rollups.exact-within dropped",
                devices.size(),
                kept,
                dropped);
    }

    /** The devices with entries in any of {@code states} (restored with the savepoint; never registered otherwise). */
    private List<String> devicesOf(String... states) {
        Set<String> devices = new LinkedHashSet<>();
        for (String state : states) {
            try (Stream<String> keys = backend.getKeys(state, VoidNamespace.INSTANCE)) {
                keys.forEach(devices::add);
            }
        }
        return new ArrayList<>(devices);
    }

    private <S extends org.apache.flink.api.common.state.State> S state(
            org.apache.flink.api.common.state.StateDescriptor<S, ?> descriptor) throws Exception {
        return backend.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
    }
}
