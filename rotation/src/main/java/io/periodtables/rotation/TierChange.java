package io.periodtables.rotation;

import io.periodtables.conf.Capacity;
import io.periodtables.conf.CapacityTier;

import org.apache.flink.annotation.PublicEvolving;

/**
 * The result of {@link TableManager#setTier}: the tier the table is at now and whether that
 * took an UpdateTable.
 *
 * @param capacity the capacity of {@code tier} (what the table has now), null when missing
 */
@PublicEvolving
public record TierChange(String table, CapacityTier tier, Outcome outcome, Capacity capacity) {

    /** What happened to the table. */
    @PublicEvolving
    public enum Outcome {
        /** UpdateTable moved the table to the tier. */
        CHANGED,
        /** The table already had the tier's capacity; nothing was sent. */
        UNCHANGED,
        /** The table does not exist (or is being deleted); nothing to do. */
        TABLE_MISSING
    }
}
