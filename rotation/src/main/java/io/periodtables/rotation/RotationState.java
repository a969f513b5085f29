package io.periodtables.rotation;

/**
 * What the rotation operator checkpoints: the highest watermark it acted on, and the write load
 * observed per period table (peaks, and the sums of seconds the watermark has not passed), from
 * which the next table is sized. Nothing about the tables themselves: after a restore the
 * rotation reads them back from DynamoDB, which is the truth.
 */
final class RotationState {
    /** {@link Long#MIN_VALUE} until a watermark inside the labelled years arrived. */
    long watermark = Long.MIN_VALUE;

    final WriteLoad load = new WriteLoad();

    boolean hasWatermark() {
        return watermark != Long.MIN_VALUE;
    }

    @Override
    public String toString() {
        return "watermark=" + watermark + ", " + load;
    }
}
