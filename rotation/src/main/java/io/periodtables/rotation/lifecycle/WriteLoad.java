package io.periodtables.rotation.lifecycle;

import io.periodtables.core.period.TableNaming;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Per period table, the peak write units per second of event time, summed over the upstream
 * subtasks' partial {@link TableLoad}s. A second stays open (its sum may still grow) until the
 * watermark passes it; a partial that arrives later counts as a second of its own, so a late
 * burst is underestimated rather than double-counted. Part of {@link
 * io.periodtables.rotation.reconcile.RotationState RotationState}; the
 * operator's thread only.
 */
public final class WriteLoad {
    /** Peaks kept per prefix: the tables the next one can be sized from, and a few more. */
    static final int KEPT_TABLES = 8;

    /** Table name to its peak; names of one prefix and period length sort in period order. */
    public final NavigableMap<String, Long> peaks = new TreeMap<>();
    /** Table name to second to summed write units, for seconds the watermark has not passed. */
    public final Map<String, NavigableMap<Long, Long>> open = new HashMap<>();

    public void add(TableLoad load) {
        long sum = open.computeIfAbsent(load.table(), t -> new TreeMap<>())
                .merge(load.second(), load.writeUnits(), Long::sum);
        peaks.merge(load.table(), sum, Math::max);
        while (peaks.size() > KEPT_TABLES) {
            open.remove(peaks.pollFirstEntry().getKey());
        }
    }

    /** Seconds that ended at or before the watermark are complete: their sums are not needed any more. */
    public void settle(long watermarkMillis) {
        if (watermarkMillis < Long.MIN_VALUE + 1000) {
            return;
        }
        long passed = Math.floorDiv(watermarkMillis - 999, 1000L) + 1; // second s ends at s*1000+999
        open.values().forEach(seconds -> seconds.headMap(passed, false).clear());
        open.values().removeIf(Map::isEmpty);
    }

    public OptionalLong peakOf(String table) {
        Long peak = peaks.get(table);
        return peak == null ? OptionalLong.empty() : OptionalLong.of(peak);
    }

    /** Only tables of this prefix and period length: a name of another naming would sort wrongly. */
    public void keepOnly(TableNaming naming) {
        peaks.keySet()
                .removeIf(name -> naming.parse(name)
                        .map(r -> r.kind() != TableNaming.TableRef.Kind.PERIOD)
                        .orElse(true));
        open.keySet().retainAll(peaks.keySet());
    }

    @Override
    public String toString() {
        return "peaks=" + peaks;
    }
}
