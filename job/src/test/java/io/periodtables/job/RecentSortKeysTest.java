package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.PeriodLength;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
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

    private final Map<String, CountingMapState<?, ?>> states = new HashMap<>();
    private final RecentSortKeys recent =
            new RecentSortKeys(context(), Duration.ofHours(1).toMillis());

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
        return states.values().stream().mapToLong(s -> s.touched).sum();
    }

    private int minutesHeld() {
        int n = 0;
        for (CountingMapState<?, ?> state : states.values()) {
            if (state.name.equals("rollup-recent-keys")) {
                n += state.map.size();
            }
        }
        return n;
    }

    /** A runtime context that gives out counting maps, one per state name. */
    private RuntimeContext context() {
        return (RuntimeContext) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {RuntimeContext.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("getMapState")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    String name = ((MapStateDescriptor<?, ?>) args[0]).getName();
                    return states.computeIfAbsent(name, CountingMapState::new);
                });
    }

    /** A map state on a hash map that counts the entries read, written, removed or iterated over. */
    private static final class CountingMapState<K, V> implements MapState<K, V> {
        final String name;
        final Map<K, V> map = new HashMap<>();
        long touched;

        CountingMapState(String name) {
            this.name = name;
        }

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
