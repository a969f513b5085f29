package io.periodtables.job;

import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.Period;
import java.util.Iterator;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;

/**
 * The rollups' duplicate check for the current device (keyed state): the sort keys of its readings
 * within {@code rollups.exact-within} of event time behind its newest reading of the same period,
 * pruned when that reading passes a whole minute. The rule depends on the readings of one device
 * and period only, which one period window emits in the order they arrived, not on the order in
 * which the windows of two periods fire, the watermark or the speed.
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
    /** Per open period (its start), the event time of the device's newest reading in it. */
    private final MapState<Long, Long> newest;

    RecentSortKeys(RuntimeContext context, long exactWithin) {
        this.exactWithin = exactWithin;
        this.seen = context.getMapState(
                new MapStateDescriptor<>("rollup-seen", StringSerializer.INSTANCE, BooleanSerializer.INSTANCE));
        this.newest = context.getMapState(
                new MapStateDescriptor<>("rollup-newest-per-period", LongSerializer.INSTANCE, LongSerializer.INSTANCE));
    }

    /** Checks the reading with sort key {@code sk} at {@code eventMillis} of {@code period} and remembers it. */
    Seen check(long eventMillis, String sk, Period period) throws Exception {
        Long known = newest.get(period.startMillis());
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
            newest.put(period.startMillis(), eventMillis);
            long horizon = eventMillis - exactWithin;
            if (before == Long.MIN_VALUE
                    || Math.floorDiv(horizon, PRUNE_MILLIS) > Math.floorDiv(before - exactWithin, PRUNE_MILLIS)) {
                prune(period.startMillis(), horizon);
            }
        }
        return result;
    }

    /** The sort keys of readings from {@code from} to before {@code horizon} (event time) go. */
    private void prune(long from, long horizon) throws Exception {
        Iterator<String> sks = seen.keys().iterator();
        while (sks.hasNext()) {
            long t = WriteSharding.eventMillisOf(sks.next());
            if (t >= from && t < horizon) {
                sks.remove();
            }
        }
    }

    /** The periods ending by {@code endMillis} have closed: their sort keys and newest readings go. */
    void forget(long endMillis) throws Exception {
        prune(Long.MIN_VALUE, endMillis);
        Iterator<Long> starts = newest.keys().iterator();
        while (starts.hasNext()) {
            if (starts.next() < endMillis) {
                starts.remove();
            }
        }
    }
}
