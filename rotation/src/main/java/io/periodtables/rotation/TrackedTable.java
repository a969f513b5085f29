package io.periodtables.rotation;

import io.periodtables.conf.CapacityTier;
import io.periodtables.conf.Period;

/**
 * A period table the rotation looks after until it reaches the {@code OLDER} tier: whether it
 * is known (or, for a period the watermark jumped over, assumed) to exist, and the tier it is
 * known to have. Mutated on the operator's mailbox thread only.
 */
final class TrackedTable {
    final String name;
    final Period period;
    boolean ensured;
    CapacityTier tier;

    TrackedTable(String name, Period period, boolean ensured, CapacityTier tier) {
        this.name = name;
        this.period = period;
        this.ensured = ensured;
        this.tier = tier;
    }

    @Override
    public String toString() {
        return name + (ensured ? "@" + tier : "(not ensured)");
    }
}
