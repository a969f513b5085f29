package io.periodtables.core.capacity;

import java.io.Serializable;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Capacity of one tier: provisioned write/read capacity units ({@code "1000/300"}) or
 * on-demand billing ({@code "on-demand"}).
 */
@PublicEvolving
public record Capacity(long writeUnits, long readUnits, boolean onDemand) implements Serializable {

    public static final Capacity ON_DEMAND = new Capacity(0, 0, true);

    public static Capacity provisioned(long writeUnits, long readUnits) {
        if (writeUnits < 1 || readUnits < 1) {
            throw new IllegalArgumentException("capacity units must be >= 1");
        }
        return new Capacity(writeUnits, readUnits, false);
    }

    /** Parses {@code W/R} (both whole numbers ≥ 1) or {@code on-demand}. */
    public static Capacity parse(String text) {
        String t = text.trim();
        if (t.equalsIgnoreCase("on-demand") || t.equalsIgnoreCase("PAY_PER_REQUEST")) {
            return ON_DEMAND;
        }
        String[] parts = t.split("/", -1);
        try {
            if (parts.length == 2) {
                long w = Long.parseLong(parts[0].trim());
                long r = Long.parseLong(parts[1].trim());
                if (w >= 1 && r >= 1) {
                    return new Capacity(w, r, false);
                }
            }
        } catch (NumberFormatException ignored) {
            // falls through to the message below
        }
        throw new IllegalArgumentException("expected W/R with whole numbers W,R >= 1 (e.g. 1000/300) or on-demand");
    }

    @Override
    public String toString() {
        return onDemand ? "on-demand" : writeUnits + "/" + readUnits;
    }
}
