package io.periodtables.rotation.reconcile;

import io.periodtables.rotation.lifecycle.WriteLoad;

/**
 * What the rotation operator checkpoints: the highest watermark it acted on, and the write load
 * observed per period table (peaks, and the sums of seconds the watermark has not passed), from
 * which the next table is sized. Nothing about the tables themselves: after a restore the
 * rotation reads them back from DynamoDB, which is the truth.
 */
public final class RotationState {
    /** {@link Long#MIN_VALUE} until a watermark inside the labelled years arrived. */
    public long watermark = Long.MIN_VALUE;

    public final WriteLoad load = new WriteLoad();

    public boolean hasWatermark() {
        return watermark != Long.MIN_VALUE;
    }

    @Override
    public String toString() {
        return "watermark=" + watermark + ", " + load;
    }
}
