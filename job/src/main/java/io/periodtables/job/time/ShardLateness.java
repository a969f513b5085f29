package io.periodtables.job.time;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.io.Serializable;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.annotation.Internal;

/**
 * Decides in the source whether a reading is late, against the watermark of its own shard:
 * the readings before it in that shard, and nothing else. The window operator's watermark is
 * the minimum over all shards and subtasks, so it depends on how the shards interleave, on the
 * parallelism (a subtask without a shard holds it back until {@code watermark.idleness}) and on
 * speed; a decision taken here does not. Because that minimum never passes a shard's own
 * watermark, the window operator never judges late a reading this judged on time; what this
 * judges late leaves for the late table directly, with the shard's watermark naming its month.
 *
 * <p>One instance per source reader, called from its task thread only. The shard watermarks are
 * not checkpointed: after a restore a shard starts again from its first reading, and the
 * restored job-wide watermark ({@link CheckpointedWatermark}) keeps readings late that were
 * late at the checkpoint.
 */
@Internal
public final class ShardLateness implements Serializable {
    private static final long serialVersionUID = 1L;

    private final PeriodCalendar calendar;
    private final Duration allowedLateness;
    private final long outOfOrderness;
    private final long granularity;
    private final ReadingWatermarks.WallClock wallClock;
    private final Map<String, Long> maxTimestampOfShard = new HashMap<>();
    // Readings of one period arrive together: the last period saves a calendar lookup.
    private transient Period last;

    ShardLateness(PeriodTablesConfig config, ReadingWatermarks.WallClock wallClock) {
        this.calendar = config.calendar();
        Duration lateness = config.get(ConfigKeys.ALLOWED_LATENESS);
        Duration outOfOrder = config.get(ConfigKeys.OUT_OF_ORDERNESS);
        this.allowedLateness = lateness;
        this.outOfOrderness = outOfOrder.toMillis();
        this.granularity = ReadingWatermarks.granularity(lateness, outOfOrder);
        this.wallClock = wallClock;
    }

    /**
     * {@code record} as it is, or, for a reading of a period whose grace its shard's watermark
     * has passed, a record for the late table.
     */
    SinkRecord judge(String shard, SinkRecord record) {
        if (record.kind() != SinkRecord.Kind.PERIOD) {
            return record;
        }
        Reading reading = record.reading();
        long t = reading.eventMillis();
        Long max = maxTimestampOfShard.get(shard);
        long watermark =
                ReadingWatermarks.watermark(max == null ? Long.MIN_VALUE : max, outOfOrderness, granularity, wallClock);
        if (max == null || t > max) {
            maxTimestampOfShard.put(shard, t);
        }
        // As Flink's window operator (Period.closesAt): late once its period is closed by the watermark.
        Period period = periodOf(t);
        if (watermark != Long.MIN_VALUE && period != null && period.closedBy(watermark, allowedLateness)) {
            return SinkRecord.late(reading, watermark);
        }
        return record;
    }

    /** {@code t}'s period; null when no table can be named for it (the sink rejects it). */
    private Period periodOf(long t) {
        if (last == null || t < last.startMillis() || t >= last.endMillis()) {
            try {
                last = calendar.periodOf(t);
            } catch (IllegalArgumentException outsideTableNames) {
                return null;
            }
        }
        return last;
    }
}
