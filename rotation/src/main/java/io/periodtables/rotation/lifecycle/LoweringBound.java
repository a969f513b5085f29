package io.periodtables.rotation.lifecycle;

import java.time.Instant;

/**
 * The event time up to which the sink writers have written everything, which bounds lowering a
 * table, and the phase of the life cycle that calls for a {@link
 * io.periodtables.rotation.reconcile.Reconciler Reconciler} pass when it moves.
 * When the rotation waits for writers, the bound is their acknowledged watermark (the smallest of
 * every writer of every sink group, read from the writers table): a closed table is lowered only
 * once it closes the table, whatever the checkpointing mode, however slow a writer. Without
 * writers to wait for, the bound is the watermark. Used from the operator's thread only.
 */
public final class LoweringBound {
    private final Lifecycle lifecycle;
    private final TablePlan plan;
    private final boolean waitsForWriters;
    private long acknowledged = Long.MIN_VALUE;
    private String phase = "";

    public LoweringBound(Lifecycle lifecycle, TablePlan plan, boolean waitsForWriters) {
        this.lifecycle = lifecycle;
        this.plan = plan;
        this.waitsForWriters = waitsForWriters;
    }

    public boolean waitsForWriters() {
        return waitsForWriters;
    }

    /** The writers have written through {@code watermark}; true when that moved the bound. */
    public boolean acknowledged(long watermark) {
        if (watermark <= acknowledged) {
            return false;
        }
        acknowledged = watermark;
        return true;
    }

    /** The writers' acknowledged watermark, {@link Long#MIN_VALUE} before it is known. */
    public long acknowledged() {
        return acknowledged;
    }

    /** The event time up to which tables may be lowered, at {@code watermark}. */
    public long lowerBy(long watermark) {
        return waitsForWriters ? Math.min(acknowledged, watermark) : watermark;
    }

    /**
     * True when {@code watermark} has closed a period that the writers have not written through
     * yet: its table waits, and the writers table is worth reading.
     */
    public boolean awaiting(long watermark) {
        if (!waitsForWriters || acknowledged >= watermark || !plan.namesTablesAt(watermark)) {
            return false;
        }
        if (!plan.namesTablesAt(acknowledged)) {
            return true;
        }
        return !lifecycle
                .oldestOpen(Instant.ofEpochMilli(acknowledged))
                .equals(lifecycle.oldestOpen(Instant.ofEpochMilli(watermark)));
    }

    /** True when the current or oldest open period, by the watermark or by the bound, changed since last asked. */
    public boolean phaseMoved(long watermark) {
        Instant now = Instant.ofEpochMilli(watermark);
        String moved = lifecycle.calendar().periodOf(now).label() + "/"
                + lifecycle.oldestOpen(now).label()
                + (!waitsForWriters
                        ? ""
                        : acknowledged >= watermark
                                ? "/written through"
                                : plan.namesTablesAt(acknowledged)
                                        ? "/"
                                                + lifecycle
                                                        .oldestOpen(Instant.ofEpochMilli(acknowledged))
                                                        .label()
                                        : "/none written");
        if (moved.equals(phase)) {
            return false;
        }
        phase = moved;
        return true;
    }
}
