package io.periodtables.job;

import io.periodtables.core.item.WriteSharding;
import java.util.Iterator;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;

/**
 * The rollups' duplicate check for the current device (keyed state): the sort keys of its readings
 * within {@code rollups.exact-within} of event time behind its newest reading, pruned when that
 * reading passes a whole minute. The rule depends on the device's own readings only, not on the
 * watermark or the speed, so it decides the same at any speed or parallelism.
 */
final class RecentSortKeys {
    /** Sort keys are pruned when the device's newest reading passes a whole minute of event time. */
    static final long PRUNE_MILLIS = 60_000;

    /** What {@link #check} found. */
    enum Seen {
        FIRST,
        DUPLICATE,
        /** Older than the window behind the device's newest reading: its key, were it a duplicate, is gone. */
        UNCHECKED
    }

    private final long exactWithin;
    private final MapState<String, Boolean> seen;
    /** The event time of the device's newest reading: sort keys are kept within exactWithin of it. */
    private final ValueState<Long> newest;

    RecentSortKeys(RuntimeContext context, long exactWithin) {
        this.exactWithin = exactWithin;
        this.seen = context.getMapState(
                new MapStateDescriptor<>("rollup-seen", StringSerializer.INSTANCE, BooleanSerializer.INSTANCE));
        this.newest = context.getState(new ValueStateDescriptor<>("rollup-newest", LongSerializer.INSTANCE));
    }

    /** Checks the reading with sort key {@code sk} at {@code eventMillis} and remembers it. */
    Seen check(long eventMillis, String sk) throws Exception {
        Long known = newest.value();
        long before = known == null ? Long.MIN_VALUE : known;
        Seen result;
        if (before == Long.MIN_VALUE || eventMillis >= before - exactWithin) {
            if (seen.contains(sk)) {
                return Seen.DUPLICATE;
            }
            seen.put(sk, Boolean.TRUE);
            result = Seen.FIRST;
        } else {
            result = Seen.UNCHECKED;
        }
        if (eventMillis > before) {
            newest.update(eventMillis);
            long horizon = eventMillis - exactWithin;
            if (before == Long.MIN_VALUE
                    || Math.floorDiv(horizon, PRUNE_MILLIS) > Math.floorDiv(before - exactWithin, PRUNE_MILLIS)) {
                prune(horizon);
            }
        }
        return result;
    }

    /** The sort keys of readings before {@code horizon} (event time) go: no reading is checked against them. */
    void prune(long horizon) throws Exception {
        Iterator<String> sks = seen.keys().iterator();
        while (sks.hasNext()) {
            if (WriteSharding.eventMillisOf(sks.next()) < horizon) {
                sks.remove();
            }
        }
    }

    /** Forgets the device's newest reading: nothing of the device is left open. */
    void clearNewest() {
        newest.clear();
    }
}
