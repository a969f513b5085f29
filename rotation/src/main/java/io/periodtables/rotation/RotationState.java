package io.periodtables.rotation;

/**
 * What the rotation operator checkpoints: the highest watermark it acted on. Nothing about the
 * tables: after a restore the rotation reads them back from DynamoDB, which is the truth.
 */
final class RotationState {
    /** {@link Long#MIN_VALUE} until a watermark inside the labelled years arrived. */
    long watermark = Long.MIN_VALUE;

    boolean hasWatermark() {
        return watermark != Long.MIN_VALUE;
    }

    @Override
    public String toString() {
        return "watermark=" + watermark;
    }
}
