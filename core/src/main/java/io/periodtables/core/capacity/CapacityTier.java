package io.periodtables.core.capacity;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Where a period table is in its life: {@code CURRENT} takes the writes (and is what a
 * prebuilt next table starts with), {@code PREVIOUS} is the table that just closed,
 * {@code OLDER} is everything before it. Each tier has a configured {@link Capacity}.
 */
@PublicEvolving
public enum CapacityTier {
    CURRENT,
    PREVIOUS,
    OLDER
}
