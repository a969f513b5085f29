package io.periodtables.rotation;

import java.util.Collection;
import java.util.TreeMap;

/**
 * What the rotation operator checkpoints: the highest watermark it acted on, the period whose
 * rollover last ran retention, and the tables it still looks after. Operations in flight are
 * not part of it; after a restore they are derived again from this state and DescribeTable.
 */
final class RotationState {
    /** {@link Long#MIN_VALUE} until a watermark inside the labelled years arrived. */
    long watermark = Long.MIN_VALUE;
    /** Label of the period at whose start retention last ran; null before the first. */
    String retentionPeriodLabel;
    private final TreeMap<String, TrackedTable> tables = new TreeMap<>();

    boolean hasWatermark() {
        return watermark != Long.MIN_VALUE;
    }

    TrackedTable get(String name) {
        return tables.get(name);
    }

    void put(TrackedTable table) {
        tables.put(table.name, table);
    }

    void remove(String name) {
        tables.remove(name);
    }

    Collection<TrackedTable> tables() {
        return tables.values();
    }

    @Override
    public String toString() {
        return "watermark=" + watermark + " retention@" + retentionPeriodLabel + " tables=" + tables.values();
    }
}
