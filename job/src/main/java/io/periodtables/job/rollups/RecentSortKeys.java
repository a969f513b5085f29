package io.periodtables.job.rollups;

import io.periodtables.core.period.Period;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.internal.InternalMapState;

/**
 * The rollups' duplicate check for the current device (keyed state): the sort keys of its readings
 * within {@code rollups.exact-within} of event time behind its newest reading of the same period,
 * kept per whole minute of event time. The rule depends on the readings of one device and period
 * only, which one period window emits in the order they arrived, not on the order in which the
 * windows of two periods fire, the watermark or the speed.
 *
 * <p>Each sort key is an entry of its own ({@code rollup-sort-keys}, in the state namespace of its
 * minute), so a reading reads one entry of its sort key and writes it, reads its period's newest
 * reading and writes it when it is newer: a bounded number of bytes however many readings a
 * minute holds. As the newest reading passes whole minutes, the minutes that fell out of the
 * window are cleared by their namespace, each sort key deleted once. Periods are whole minutes,
 * so a minute belongs to one period, and the minutes a period holds are those from its newest
 * reading's minute back over the window: expiry never looks beyond them.
 */
final class RecentSortKeys {
    static final long MINUTE_MILLIS = 60_000;
    static final String SORT_KEYS = "rollup-sort-keys";
    static final String NEWEST = "rollup-newest-per-period";

    /** What {@link #check} found. */
    enum Seen {
        FIRST,
        DUPLICATE,
        /** Older than the window behind the device's newest reading: its key, were it a duplicate, is gone. */
        UNCHECKED
    }

    /** The sort keys of the current device by minute of event time (the minute's start). */
    interface ByMinute {
        boolean contains(long minute, String sk) throws Exception;

        void add(long minute, String sk) throws Exception;

        void clear(long minute) throws Exception;
    }

    private final long exactWithin;
    private final ByMinute keys;
    /** Per open period (its start), the event time of the device's newest reading in it. */
    private final MapState<Long, Long> newest;

    RecentSortKeys(ByMinute keys, MapState<Long, Long> newest, long exactWithin) {
        this.exactWithin = exactWithin;
        this.keys = keys;
        this.newest = newest;
    }

    /** The duplicate check on {@code backend}'s state of the current key. */
    static RecentSortKeys of(KeyedStateBackend<?> backend, MapState<Long, Long> newest, long exactWithin)
            throws Exception {
        return new RecentSortKeys(byMinute(backend), newest, exactWithin);
    }

    static MapStateDescriptor<Long, Long> newestDescriptor() {
        return new MapStateDescriptor<>(NEWEST, LongSerializer.INSTANCE, LongSerializer.INSTANCE);
    }

    /** {@code rollup-sort-keys}: sort key → true, in the namespace of its minute. */
    static ByMinute byMinute(KeyedStateBackend<?> backend) throws Exception {
        @SuppressWarnings("unchecked")
        InternalMapState<?, Long, String, Boolean> state =
                (InternalMapState<?, Long, String, Boolean>) backend.getOrCreateKeyedState(
                        LongSerializer.INSTANCE,
                        new MapStateDescriptor<>(SORT_KEYS, StringSerializer.INSTANCE, BooleanSerializer.INSTANCE));
        return new ByMinute() {
            @Override
            public boolean contains(long minute, String sk) throws Exception {
                state.setCurrentNamespace(minute);
                return state.contains(sk);
            }

            @Override
            public void add(long minute, String sk) throws Exception {
                state.setCurrentNamespace(minute);
                state.put(sk, Boolean.TRUE);
            }

            @Override
            public void clear(long minute) {
                state.setCurrentNamespace(minute);
                state.clear();
            }
        };
    }

    /** Checks the reading with sort key {@code sk} at {@code eventMillis} of {@code period} and remembers it. */
    Seen check(long eventMillis, String sk, Period period) throws Exception {
        Long known = newest.get(period.startMillis());
        Seen result;
        if (known == null || eventMillis >= known - exactWithin) {
            long minute = minuteOf(eventMillis);
            if (keys.contains(minute, sk)) {
                return Seen.DUPLICATE;
            }
            keys.add(minute, sk);
            result = Seen.FIRST;
        } else {
            result = Seen.UNCHECKED;
        }
        if (known == null || eventMillis > known) {
            newest.put(period.startMillis(), eventMillis);
            if (known != null) {
                clearMinutes(
                        Math.max(period.startMillis(), firstMinute(known)), minuteOf(known), firstMinute(eventMillis));
            }
        }
        return result;
    }

    /**
     * Clears the minutes from {@code from} to {@code last} (the minute of the period's newest
     * reading, past which nothing is held), up to before {@code to}: the minutes that fell out of
     * the window as the newest reading moved; after a long silence at most the window's minutes.
     */
    private void clearMinutes(long from, long last, long to) throws Exception {
        for (long minute = from; minute <= last && minute < to; minute += MINUTE_MILLIS) {
            keys.clear(minute);
        }
    }

    /** The periods ending by {@code endMillis} have closed: their sort keys and newest readings go. */
    void forget(long endMillis) throws Exception {
        List<Map.Entry<Long, Long>> closed = new ArrayList<>();
        for (Map.Entry<Long, Long> period : newest.entries()) {
            if (period.getKey() < endMillis) {
                closed.add(Map.entry(period.getKey(), period.getValue()));
            }
        }
        for (Map.Entry<Long, Long> period : closed) {
            long last = minuteOf(period.getValue());
            clearMinutes(Math.max(period.getKey(), firstMinute(period.getValue())), last, last + MINUTE_MILLIS);
            newest.remove(period.getKey());
        }
    }

    /** The first minute of the window behind a newest reading at {@code newestMillis}. */
    long firstMinute(long newestMillis) {
        return minuteOf(newestMillis - exactWithin);
    }

    /** Whether a reading at {@code eventMillis} is in the window behind a newest reading at {@code newestMillis}. */
    boolean within(long eventMillis, long newestMillis) {
        return eventMillis >= newestMillis - exactWithin && eventMillis <= newestMillis;
    }

    static long minuteOf(long eventMillis) {
        return Math.floorDiv(eventMillis, MINUTE_MILLIS) * MINUTE_MILLIS;
    }
}
