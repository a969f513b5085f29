package io.periodtables.rotation.lifecycle;

import io.periodtables.core.period.TableNaming;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Per period and rollups table, the peak write units per second, summed over the upstream
 * subtasks' partial {@link TableLoad}s: the larger of the peak per second of event time and the
 * peak per second of the wall clock (a replay writes its event time's seconds much faster). An
 * event-time second stays open (its sum may still grow) until the watermark passes it; a partial
 * that arrives later counts as a second of its own, so a late burst is underestimated rather than
 * double-counted. Wall-clock seconds are summed for the newest {@value #WALL_SECONDS_KEPT} seconds
 * of each table, and not checkpointed (a restore may split one second: underestimated, never
 * double-counted). Part of {@link io.periodtables.rotation.reconcile.RotationState RotationState};
 * the operator's thread only.
 */
public final class WriteLoad {
    /** Peaks kept per kind (period, rollups): the tables the next one can be sized from, and a few more. */
    static final int KEPT_TABLES = 8;
    /** Wall-clock seconds summed per table: partials of one second arrive within a few seconds. */
    static final int WALL_SECONDS_KEPT = 10;

    /** Table name to its peak; names of one prefix and period length sort in period order. */
    public final NavigableMap<String, Long> peaks = new TreeMap<>();
    /** Table name to second to summed write units, for seconds the watermark has not passed. */
    public final Map<String, NavigableMap<Long, Long>> open = new HashMap<>();

    /** Table name to wall-clock second to summed write units, the newest seconds only. */
    private final Map<String, NavigableMap<Long, Long>> wall = new HashMap<>();

    public void add(TableLoad load) {
        NavigableMap<Long, Long> seconds =
                (load.wallClock() ? wall : open).computeIfAbsent(load.table(), t -> new TreeMap<>());
        long sum = seconds.merge(load.second(), load.writeUnits(), Long::sum);
        if (load.wallClock()) {
            seconds.headMap(seconds.lastKey() - WALL_SECONDS_KEPT, true).clear();
        }
        peaks.merge(load.table(), sum, Math::max);
        forgetOldest(kind(load.table()));
    }

    /** Table names of one kind and prefix share all but their label, which has no underscore. */
    private static String kind(String table) {
        return table.substring(0, Math.max(0, table.lastIndexOf('_')));
    }

    private void forgetOldest(String kind) {
        List<String> ofKind =
                peaks.keySet().stream().filter(t -> kind(t).equals(kind)).toList();
        for (int i = 0; i < ofKind.size() - KEPT_TABLES; i++) {
            peaks.remove(ofKind.get(i));
            open.remove(ofKind.get(i));
            wall.remove(ofKind.get(i));
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

    /** Only period and rollups tables of this prefix and period length: a name of another naming would sort wrongly. */
    public void keepOnly(TableNaming naming) {
        peaks.keySet()
                .removeIf(name -> naming.parse(name)
                        .map(r -> r.kind() != TableNaming.TableRef.Kind.PERIOD
                                && r.kind() != TableNaming.TableRef.Kind.ROLLUPS)
                        .orElse(true));
        open.keySet().retainAll(peaks.keySet());
        wall.keySet().retainAll(peaks.keySet());
    }

    @Override
    public String toString() {
        return "peaks=" + peaks;
    }
}
