package io.periodtables.rotation.lifecycle;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Per period and rollups table, the peak write units per second of event time, summed over the
 * upstream subtasks' partial {@link TableLoad}s: the fleet's rate, the same whether its readings
 * are read live, in a backfill or in a replay. A second stays open (its sum may still grow) until
 * the watermark passes it; a partial that arrives later counts as a second of its own, so a late
 * burst is underestimated rather than double-counted. The synthetic fleet's seconds are longer
 * ({@link #liveSecond}). It also remembers, per kind of table, the first second it counted, which
 * tells a period the run saw whole from one it saw only in part ({@link #seenWhole}). Part of {@link
 * io.periodtables.rotation.reconcile.RotationState RotationState}; the operator's thread only.
 */
public final class WriteLoad {
    /** Peaks kept per kind (period, rollups): the tables the next one can be sized from, and a few more. */
    static final int KEPT_TABLES = 8;

    /** Table name to its peak; names of one prefix and period length sort in period order. */
    public final NavigableMap<String, Long> peaks = new TreeMap<>();
    /**
     * Table name to second (one {@link #liveSecond} of event time) to summed write units, for
     * seconds the watermark has not passed.
     */
    public final Map<String, NavigableMap<Long, Long>> open = new HashMap<>();

    /**
     * Kind of table (its name without the label: {@code readings}, {@code readings_rollups}) to the
     * earliest second of event time counted for a table of that kind: where this run's (and its
     * restored predecessors') observation began.
     */
    public final Map<String, Long> firstSeconds = new HashMap<>();

    /** Seconds of event time counted as one second of the fleet's live rate. */
    private long secondsPerLiveSecond = 1;

    /**
     * The seconds of event time that are one second of the fleet's live rate: 1, but {@code
     * generator.speedup} (in whole seconds) for the synthetic fleet ({@code source=generator}),
     * whose event time runs that much faster than the wall clock on purpose (the local demo's
     * 10×): its load is counted per that many seconds, what it writes in a wall-clock second.
     * Deterministic all the same: the buckets are of event time.
     */
    public static long liveSecond(PeriodTablesConfig config) {
        return config.get(ConfigKeys.SOURCE) == ConfigKeys.SourceKind.GENERATOR
                ? Math.max(1, Math.round(config.get(ConfigKeys.GENERATOR_SPEEDUP)))
                : 1;
    }

    /** Counts per {@link #liveSecond} of {@code config}; before anything is added. */
    public WriteLoad countingFor(PeriodTablesConfig config) {
        secondsPerLiveSecond = liveSecond(config);
        return this;
    }

    public void add(TableLoad load) {
        long sum = open.computeIfAbsent(load.table(), t -> new TreeMap<>())
                .merge(Math.floorDiv(load.second(), secondsPerLiveSecond), load.writeUnits(), Long::sum);
        peaks.merge(load.table(), sum, Math::max);
        firstSeconds.merge(kind(load.table()), load.second(), Math::min);
        forgetOldest(kind(load.table()));
    }

    /**
     * True when the run counted {@code table}'s kind from the first second of {@code period} or
     * earlier: it saw the whole period, and its peak measures the fleet. False when its counts
     * began inside the period (the job started, or was restored without these counts, there, or a
     * backfill began there) or never began: the peak, if any, is that of a part.
     */
    public boolean seenWhole(String table, Period period) {
        Long first = firstSeconds.get(kind(table));
        return first != null && first <= Math.floorDiv(period.startMillis(), 1000L);
    }

    /** Table names of one kind and prefix share all but their label, which has no underscore. */
    public static String kind(String table) {
        return table.substring(0, Math.max(0, table.lastIndexOf('_')));
    }

    private void forgetOldest(String kind) {
        List<String> ofKind =
                peaks.keySet().stream().filter(t -> kind(t).equals(kind)).toList();
        for (int i = 0; i < ofKind.size() - KEPT_TABLES; i++) {
            peaks.remove(ofKind.get(i));
            open.remove(ofKind.get(i));
        }
    }

    /** Seconds that ended at or before the watermark are complete: their sums are not needed any more. */
    public void settle(long watermarkMillis) {
        if (watermarkMillis < Long.MIN_VALUE + 1000) {
            return;
        }
        long passed = Math.floorDiv(watermarkMillis - 999, 1000L) + 1; // second s ends at s*1000+999
        long livePassed = Math.floorDiv(passed, secondsPerLiveSecond); // live second b: b*k .. b*k+k-1
        open.values().forEach(seconds -> seconds.headMap(livePassed, false).clear());
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
        firstSeconds
                .keySet()
                .retainAll(peaks.keySet().stream().map(WriteLoad::kind).toList());
    }

    @Override
    public String toString() {
        return "peaks=" + peaks + ", counted from " + firstSeconds;
    }
}
