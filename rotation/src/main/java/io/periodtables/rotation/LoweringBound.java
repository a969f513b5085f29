package io.periodtables.rotation;

import java.time.Instant;

/**
 * The event time up to which the sink has written everything, which bounds lowering a table, and
 * the phase of the life cycle that calls for a {@link Reconciler} pass when it moves. With
 * checkpointing on, a table is lowered only by a watermark that a completed checkpoint has
 * covered: watermarks are in-band, so the sink flushed every reading before it when that
 * checkpoint completed. Used from the operator's thread only.
 */
final class LoweringBound {
    private final Lifecycle lifecycle;
    private final TablePlan plan;
    private boolean checkpointGated;
    private long closedBy = Long.MIN_VALUE;
    private String phase = "";

    LoweringBound(Lifecycle lifecycle, TablePlan plan) {
        this.lifecycle = lifecycle;
        this.plan = plan;
    }

    /** Lowering waits for completed checkpoints from now on; {@code restoredWatermark}: that of the state restored from. */
    void gateOnCheckpoints(long restoredWatermark) {
        checkpointGated = true;
        closedBy = restoredWatermark;
    }

    /** A checkpoint covered everything before {@code watermark}; true when that moved the bound. */
    boolean covered(long watermark) {
        if (watermark <= closedBy) {
            return false;
        }
        closedBy = watermark;
        return true;
    }

    /** The event time up to which tables may be lowered, at {@code watermark}. */
    long lowerBy(long watermark) {
        return checkpointGated ? Math.min(closedBy, watermark) : watermark;
    }

    /** True when the current or oldest open period, by the watermark or by the bound, changed since last asked. */
    boolean phaseMoved(long watermark) {
        Instant now = Instant.ofEpochMilli(watermark);
        String moved = lifecycle.calendar().periodOf(now).label() + "/"
                + lifecycle.oldestOpen(now).label()
                + (checkpointGated && closedBy != Long.MIN_VALUE && plan.namesTablesAt(closedBy)
                        ? "/"
                                + lifecycle
                                        .oldestOpen(Instant.ofEpochMilli(closedBy))
                                        .label()
                        : "");
        if (moved.equals(phase)) {
            return false;
        }
        phase = moved;
        return true;
    }
}
