package io.periodtables.rotation.reconcile;

import io.periodtables.core.capacity.CapacityTier;
import org.apache.flink.annotation.PublicEvolving;

/**
 * What the rotation operator did, emitted as its output for observation and tests (the job
 * may ignore the stream). Emitted when the result reached the operator, with the watermark it
 * had then.
 *
 * @param tier the tier the table is at ({@code TABLE_READY}, {@code TIER_SET}), else null
 * @param watermark the operator's event-time watermark when it learned the result, or
 *     {@link Long#MIN_VALUE} before the first
 * @param leadMillis for {@code TABLE_READY}: period start minus that watermark, i.e. how long
 *     before its period began (in event time) the table was ready; negative when late
 * @param detail {@code created}/{@code existed}, {@code changed}/{@code unchanged}, or the error
 */
@PublicEvolving
public record RotationEvent(
        Kind kind, String table, CapacityTier tier, long watermark, long leadMillis, String detail) {

    /** Kinds of rotation events. */
    @PublicEvolving
    public enum Kind {
        TABLE_READY,
        TIER_SET,
        TABLE_DELETED,
        DELETION_PROTECTED,
        FAILED
    }
}
