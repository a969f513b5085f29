package io.periodtables.job.time;

import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * The events by which a split's enumerator moves a finished split's watermark hold from the reader
 * that finished it to the reader of its successor (a Kinesis parent's child given to another
 * subtask), so that the job's watermark never passes the successor's first readings. In order:
 *
 * <ol>
 *   <li>{@link Hold} to the finisher, sent before any successor is assigned: keep these finished
 *       splits' outputs holding the watermark, also when new splits come;
 *   <li>{@link Held}, its answer: the watermark each held output holds (a split it no longer holds,
 *       as after the reader restarted, is left out);
 *   <li>{@link TakeOver} to the successor's reader: emit that watermark, so that the reader is active
 *       and no later than the finished split's end before the hold ends;
 *   <li>{@link TookOver}, its answer, sent once a checkpoint taken after that watermark completed:
 *       every operator downstream has then taken it in (the barrier follows it in the channel);
 *   <li>{@link Release} to the finisher: the held outputs go.
 * </ol>
 *
 * A hold the enumerator never releases (an enumerator restored from a checkpoint knows of none) ends
 * as every finished split's does: when {@code watermark.idleness} passes without a reading.
 */
@Internal
public final class WatermarkHandOver {
    private WatermarkHandOver() {}

    /** Keep the outputs of these finished splits until {@link Release}; answer {@link Held}. */
    public record Hold(List<String> splitIds) implements SourceEvent {
        private static final long serialVersionUID = 1L;
    }

    /** The watermark each finished split's held output holds, by split id; {@code gone}: asked for, not held. */
    public record Held(Map<String, Long> watermarks, List<String> gone) implements SourceEvent {
        private static final long serialVersionUID = 1L;
    }

    /** Hold the reader's watermark at no later than {@code watermark} for the successor {@code splitId}. */
    public record TakeOver(String splitId, long watermark) implements SourceEvent {
        private static final long serialVersionUID = 1L;
    }

    /** The reader of {@code splitId} emitted {@code watermark}, and a checkpoint after it completed. */
    public record TookOver(String splitId, long watermark) implements SourceEvent {
        private static final long serialVersionUID = 1L;
    }

    /** Let the held outputs of these finished splits go. */
    public record Release(List<String> splitIds) implements SourceEvent {
        private static final long serialVersionUID = 1L;
    }
}
