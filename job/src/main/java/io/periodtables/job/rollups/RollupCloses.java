package io.periodtables.job.rollups;

import io.periodtables.core.period.PeriodCalendar;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.util.function.FunctionUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The allowed lateness the rollups' period-close timers were set under, kept in operator state.
 * A period's state goes at its close, {@code end - 1 + window.allowed-lateness}; a restored timer
 * fires at the close under the lateness it was set with, which never is the close under another.
 * So a restore under another lateness (or from a savepoint that did not keep it) sets the close of
 * every period a device holds state of again under the current one, once, as the operator opens:
 * a device silent after the restore loses its state when its periods close. The restored timers
 * of the old lateness then fire and find nothing to do.
 */
final class RollupCloses {
    private static final Logger LOG = LoggerFactory.getLogger(RollupCloses.class);

    /** The lateness in milliseconds, one entry per subtask (union: every subtask sees them all). */
    static final String LATENESS = "rollup-close-lateness";

    private final ListState<Long> kept;
    private final Duration lateness;
    /** The latenesses the restored timers were set under; empty when the savepoint did not keep them. */
    private final List<Long> restored;

    private final boolean wasRestored;

    private RollupCloses(ListState<Long> kept, Duration lateness, List<Long> restored, boolean wasRestored) {
        this.kept = kept;
        this.lateness = lateness;
        this.restored = restored;
        this.wasRestored = wasRestored;
    }

    static RollupCloses restore(OperatorStateStore store, boolean restored, Duration lateness) throws Exception {
        ListState<Long> kept = store.getUnionListState(new ListStateDescriptor<>(LATENESS, LongSerializer.INSTANCE));
        List<Long> latenesses = new ArrayList<>();
        if (restored) {
            kept.get().forEach(latenesses::add);
        }
        return new RollupCloses(kept, lateness, latenesses, restored);
    }

    /** Whether some restored timers may close periods under another lateness than the current one. */
    boolean setUnderAnother() {
        return wasRestored && (restored.isEmpty() || restored.stream().anyMatch(l -> l != lateness.toMillis()));
    }

    /**
     * Sets the close, under the current lateness, of every period with buckets or sort keys in
     * {@code backend}, device by device as the state backend streams them.
     */
    void setAgain(
            KeyedStateBackend<String> backend, InternalTimerService<VoidNamespace> timers, PeriodCalendar calendar)
            throws Exception {
        long devices = setAgain(backend, timers, calendar, RollupBuckets.bucketsDescriptor(), true)
                + setAgain(backend, timers, calendar, RecentSortKeys.newestDescriptor(), false);
        LOG.info(
                "Rollups: restored under window.allowed-lateness {} (the savepoint's: {}): the period closes of {}"
                        + " devices' state set again",
                lateness,
                restored.isEmpty()
                        ? "not kept"
                        : restored.stream().distinct().map(Duration::ofMillis).toList(),
                devices);
    }

    private long setAgain(
            KeyedStateBackend<String> backend,
            InternalTimerService<VoidNamespace> timers,
            PeriodCalendar calendar,
            MapStateDescriptor<Long, ?> descriptor,
            boolean bucketKeys)
            throws Exception {
        MapState<Long, ?> state =
                backend.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, descriptor);
        long[] devices = {0};
        try (Stream<String> keys = backend.getKeys(descriptor.getName(), VoidNamespace.INSTANCE)) {
            keys.forEach(FunctionUtils.uncheckedConsumer(device -> {
                backend.setCurrentKey(device);
                long last = Long.MIN_VALUE;
                for (long key : state.keys()) {
                    long close = calendar.periodOf(bucketKeys ? BucketKeys.startOf(key) : key)
                            .closesAt(lateness);
                    if (close != last) { // a device's buckets come a period after the other
                        timers.registerEventTimeTimer(VoidNamespace.INSTANCE, close);
                        last = close;
                    }
                }
                devices[0]++;
            }));
        }
        return devices[0];
    }

    /** Keeps the current lateness in the snapshot. */
    void snapshot() throws Exception {
        kept.update(List.of(lateness.toMillis()));
    }
}
