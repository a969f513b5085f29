package io.periodtables.job.rollups;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.PeriodLength;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.state.MapState;
import org.junit.jupiter.api.Test;

/**
 * The rollups' duplicate check does work per reading that does not grow with the sort keys its
 * window holds: a device reading once a second keeps 3,600 of them for {@code rollups.exact-within}
 * = 1 h, and each reading touches a few state entries, where a scan of them all every minute of
 * event time cost 60 entries a reading (and, on RocksDB, a read of each). The state entries are
 * counted on maps that stand for the backend's.
 */
class RecentSortKeysTest {

    private static final PeriodCalendar DAYS = new PeriodCalendar(PeriodLength.parse("P1D"), ZoneOffset.UTC);
    private static final Instant DAY = Instant.parse("2025-06-01T00:00:00Z");
    private static final WriteSharding SHARDING = new WriteSharding(1);

    private final CountingMapState<Long, Long> newest = new CountingMapState<>();
    private final CountingByMinute byMinute = new CountingByMinute();
    private final RecentSortKeys recent =
            new RecentSortKeys(byMinute, newest, Duration.ofHours(1).toMillis());

    @Test
    void aReadingTouchesAFewStateEntriesHoweverManySortKeysTheWindowHolds() throws Exception {
        for (int second = 0; second < 2 * 3600; second++) {
            assertThat(check(second)).isEqualTo(RecentSortKeys.Seen.FIRST);
        }
        long touchedBefore = touched();
        for (int second = 2 * 3600; second < 3 * 3600; second++) {
            check(second);
        }
        double perReading = (touched() - touchedBefore) / 3600.0;
        assertThat(perReading).as("state entries touched per reading").isLessThan(6);
    }

    @Test
    void duplicatesWithinTheWindowAreFoundOlderOnesAreUncheckedAndASilentDeviceKeepsNoOldMinutes() throws Exception {
        for (int second = 0; second < 3 * 3600; second += 10) {
            check(second);
        }
        assertThat(check(3 * 3600 - 10)).isEqualTo(RecentSortKeys.Seen.DUPLICATE);
        assertThat(check(2 * 3600)).as("59 min 50 s behind").isEqualTo(RecentSortKeys.Seen.DUPLICATE);
        assertThat(check(3600)).as("two hours behind").isEqualTo(RecentSortKeys.Seen.UNCHECKED);
        assertThat(minutesHeld()).isBetween(60, 62);

        check(12 * 3600); // nine hours later
        assertThat(minutesHeld()).as("only the minute of the newest reading").isEqualTo(1);
        assertThat(check(12 * 3600)).isEqualTo(RecentSortKeys.Seen.DUPLICATE);

        recent.forget(DAYS.periodOf(DAY).endMillis());
        assertThat(minutesHeld()).isZero();
        assertThat(check(12 * 3600)).as("the period's keys are gone").isEqualTo(RecentSortKeys.Seen.FIRST);
    }

    private RecentSortKeys.Seen check(int second) throws Exception {
        long t = DAY.plusSeconds(second).toEpochMilli();
        Period period = DAYS.periodOf(DAY.plusSeconds(second));
        return recent.check(t, SHARDING.keyOf("dev-1", t, null, "{}").sk(), period);
    }

    private long touched() {
        return newest.touched + byMinute.touched;
    }

    private int minutesHeld() {
        return byMinute.minutes.size();
    }

    /** The sort keys by minute on hash maps, counting the entries read, written or deleted (each of a cleared minute). */
    private static final class CountingByMinute implements RecentSortKeys.ByMinute {
        final Map<Long, Set<String>> minutes = new HashMap<>();
        long touched;

        @Override
        public boolean contains(long minute, String sk) {
            touched++;
            return minutes.getOrDefault(minute, Set.of()).contains(sk);
        }

        @Override
        public void add(long minute, String sk) {
            touched++;
            minutes.computeIfAbsent(minute, m -> new HashSet<>()).add(sk);
        }

        @Override
        public void clear(long minute) {
            Set<String> gone = minutes.remove(minute);
            touched += 1 + (gone == null ? 0 : gone.size());
        }
    }

    /** A map state on a hash map that counts the entries read, written, removed or iterated over. */
    private static final class CountingMapState<K, V> implements MapState<K, V> {
        final Map<K, V> map = new HashMap<>();
        long touched;

        @Override
        public V get(K key) {
            touched++;
            return map.get(key);
        }

        @Override
        public void put(K key, V value) {
            touched++;
            map.put(key, value);
        }

        @Override
        public void putAll(Map<K, V> values) {
            touched += values.size();
            map.putAll(values);
        }

        @Override
        public void remove(K key) {
            touched++;
            map.remove(key);
        }

        @Override
        public boolean contains(K key) {
            touched++;
            return map.containsKey(key);
        }

        @Override
        public Iterable<Map.Entry<K, V>> entries() {
            return () -> counted(map.entrySet().iterator());
        }

        @Override
        public Iterable<K> keys() {
            return () -> counted(map.keySet().iterator());
        }

        @Override
        public Iterable<V> values() {
            return () -> counted(map.values().iterator());
        }

        @Override
        public Iterator<Map.Entry<K, V>> iterator() {
            return counted(map.entrySet().iterator());
        }

        @Override
        public boolean isEmpty() {
            touched++;
            return map.isEmpty();
        }

        @Override
        public void clear() {
            touched++;
            map.clear();
        }

        private <T> Iterator<T> counted(Iterator<T> iterator) {
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return iterator.hasNext();
                }

                @Override
                public T next() {
                    touched++;
                    return iterator.next();
                }

                @Override
                public void remove() {
                    iterator.remove();
                }
            };
        }
    }
}
