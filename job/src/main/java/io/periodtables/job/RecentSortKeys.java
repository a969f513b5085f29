package io.periodtables.job;

import io.periodtables.core.period.Period;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;

/**
 * The rollups' duplicate check for the current device (keyed state): the sort keys of its readings
 * within {@code rollups.exact-within} of event time behind its newest reading of the same period,
 * kept per whole minute of event time. The rule depends on the readings of one device and period
 * only, which one period window emits in the order they arrived, not on the order in which the
 * windows of two periods fire, the watermark or the speed.
 *
 * <p>Work per reading: one map entry read and written, holding the sort keys of that minute (a
 * device's readings in a minute); as the newest reading passes whole minutes, the minutes that
 * fell out of the window are removed by their key, so nothing is scanned, however many sort keys
 * the window holds. Periods are whole minutes, so a minute belongs to one period.
 */
final class RecentSortKeys {
    static final long MINUTE_MILLIS = 60_000;

    /** What {@link #check} found. */
    enum Seen {
        FIRST,
        DUPLICATE,
        /** Older than the window behind the device's newest reading: its key, were it a duplicate, is gone. */
        UNCHECKED
    }

    private final long exactWithin;
    /** Per minute of event time (its start), the sort keys of the device's readings in it. */
    private final MapState<Long, List<String>> keys;
    /** Per open period (its start), the event time of the device's newest reading in it. */
    private final MapState<Long, Long> newest;
    /** The layout before this one, one entry per sort key: emptied as each device's period closes. */
    private final MapState<String, Boolean> before;

    RecentSortKeys(RuntimeContext context, long exactWithin) {
        this.exactWithin = exactWithin;
        this.keys = context.getMapState(new MapStateDescriptor<>(
                "rollup-recent-keys", LongSerializer.INSTANCE, new ListSerializer<>(StringSerializer.INSTANCE)));
        this.newest = context.getMapState(
                new MapStateDescriptor<>("rollup-newest-per-period", LongSerializer.INSTANCE, LongSerializer.INSTANCE));
        this.before = context.getMapState(
                new MapStateDescriptor<>("rollup-seen", StringSerializer.INSTANCE, BooleanSerializer.INSTANCE));
    }

    /** Checks the reading with sort key {@code sk} at {@code eventMillis} of {@code period} and remembers it. */
    Seen check(long eventMillis, String sk, Period period) throws Exception {
        Long known = newest.get(period.startMillis());
        Seen result;
        if (known == null || eventMillis >= known - exactWithin) {
            long minute = minuteOf(eventMillis);
            List<String> ofMinute = keys.get(minute);
            if (ofMinute == null) {
                ofMinute = new ArrayList<>(4);
            } else if (ofMinute.contains(sk)) {
                return Seen.DUPLICATE;
            }
            ofMinute.add(sk);
            keys.put(minute, ofMinute); // RocksDB needs the put; on the heap it is the same list
            result = Seen.FIRST;
        } else {
            result = Seen.UNCHECKED;
        }
        if (known == null || eventMillis > known) {
            newest.put(period.startMillis(), eventMillis);
            if (known != null) {
                prune(period, minuteOf(known - exactWithin), minuteOf(eventMillis - exactWithin));
            }
        }
        return result;
    }

    /**
     * The window's start moved from minute {@code from} to minute {@code to} of {@code period}:
     * the minutes between go, by their keys; a jump longer than the window's minutes (a device
     * silent for a while) removes what the period holds before {@code to} instead.
     */
    private void prune(Period period, long from, long to) throws Exception {
        long start = Math.max(from, period.startMillis());
        if (to <= start) {
            return;
        }
        if ((to - start) / MINUTE_MILLIS > exactWithin / MINUTE_MILLIS + 2) {
            removeMinutes(period.startMillis(), to);
            return;
        }
        for (long minute = start; minute < to; minute += MINUTE_MILLIS) {
            keys.remove(minute);
        }
    }

    /** The periods ending by {@code endMillis} have closed: their sort keys and newest readings go. */
    void forget(long endMillis) throws Exception {
        removeMinutes(Long.MIN_VALUE, endMillis);
        Iterator<Long> starts = newest.keys().iterator();
        while (starts.hasNext()) {
            if (starts.next() < endMillis) {
                starts.remove();
            }
        }
        before.clear();
    }

    /** Removes the minutes from {@code from} to before {@code to}: at most the window's minutes of each open period. */
    private void removeMinutes(long from, long to) throws Exception {
        Iterator<Long> minutes = keys.keys().iterator();
        while (minutes.hasNext()) {
            long minute = minutes.next();
            if (minute >= from && minute < to) {
                minutes.remove();
            }
        }
    }

    private static long minuteOf(long eventMillis) {
        return Math.floorDiv(eventMillis, MINUTE_MILLIS) * MINUTE_MILLIS;
    }
}
