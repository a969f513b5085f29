package io.periodtables.job.time;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.SinkRecord;
import java.io.Serializable;
import java.time.Duration;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * Event time of one source split (a Kinesis shard, a generator split): the bounded
 * out-of-orderness watermark, {@code max event time − out-of-orderness − 1 ms}, with three
 * differences from Flink's {@code BoundedOutOfOrdernessWatermarks}:
 *
 * <ul>
 *   <li><b>Emitted on event</b>, as soon as a reading moves it, not only on the periodic timer:
 *       which readings are late then depends on the order of the data, not on how fast a replay
 *       reads it. It moves in whole {@code granularity} steps so that a busy split emits one
 *       watermark per second of event time, not one per reading; with period boundaries and
 *       allowed lateness in whole seconds, a reading is late exactly when it would be under the
 *       unrounded watermark.
 *   <li><b>Capped at the wall clock</b> less the out-of-orderness bound (when a {@link WallClock}
 *       is given): a device whose clock runs fast is stored in its own period but cannot make
 *       the rest of the fleet late, nor close a table the fleet still writes to.
 *   <li>Rejections (timestamp {@link Long#MIN_VALUE}) do not move it.
 * </ul>
 *
 * Given to {@code fromSource}, Flink keeps one generator per split and forwards the minimum over
 * the splits; {@link #strategy} adds per-split idleness.
 */
@Internal
public final class ReadingWatermarks implements WatermarkGenerator<SinkRecord> {

    /** The clock the watermark may not run ahead of. */
    @FunctionalInterface
    interface WallClock extends Serializable {
        long millis();

        static WallClock system() {
            return System::currentTimeMillis;
        }
    }

    private final long outOfOrderness;
    private final long granularity;
    private final WallClock wallClock;
    private long maxTimestamp = Long.MIN_VALUE;
    private long emitted = Long.MIN_VALUE;

    ReadingWatermarks(Duration outOfOrderness, long granularity, WallClock wallClock) {
        this.outOfOrderness = outOfOrderness.toMillis();
        this.granularity = granularity;
        this.wallClock = wallClock;
    }

    /**
     * The job's watermark strategy: {@code watermark.out-of-orderness}, {@code watermark.idleness}
     * per split, readings' event time as timestamps, capped at the wall clock unless the source's
     * event time is synthetic (the fleet generator's runs faster than the wall clock on purpose).
     */
    public static WatermarkStrategy<SinkRecord> strategy(PeriodTablesConfig config, boolean capAtWallClock) {
        return strategy(config, capAtWallClock ? WallClock.system() : null);
    }

    public static WatermarkStrategy<SinkRecord> strategy(PeriodTablesConfig config, WallClock wallClock) {
        Duration outOfOrderness = config.get(ConfigKeys.OUT_OF_ORDERNESS);
        long granularity = granularity(config.get(ConfigKeys.ALLOWED_LATENESS), outOfOrderness);
        return WatermarkStrategy.<SinkRecord>forGenerator(
                        ctx -> new ReadingWatermarks(outOfOrderness, granularity, wallClock))
                .withTimestampAssigner((record, previous) -> timestampOf(record))
                .withIdleness(config.get(ConfigKeys.IDLENESS));
    }

    /** Whole seconds when the lateness arithmetic is in whole seconds (periods always are), else 1 ms. */
    static long granularity(Duration allowedLateness, Duration outOfOrderness) {
        return allowedLateness.toMillis() % 1000 == 0 && outOfOrderness.toMillis() % 1000 == 0 ? 1000 : 1;
    }

    static long timestampOf(SinkRecord record) {
        return record.kind() == SinkRecord.Kind.REJECTED
                ? Long.MIN_VALUE
                : record.reading().eventMillis();
    }

    /**
     * The watermark after readings up to {@code maxTimestamp}: {@code maxTimestamp −
     * outOfOrderness − 1}, at most the wall clock's likewise, rounded down to a whole
     * {@code granularity} less 1 ms; {@link Long#MIN_VALUE} before the first reading.
     */
    static long watermark(long maxTimestamp, long outOfOrderness, long granularity, WallClock wallClock) {
        if (maxTimestamp == Long.MIN_VALUE) {
            return Long.MIN_VALUE;
        }
        long bound = maxTimestamp - outOfOrderness;
        if (wallClock != null) {
            bound = Math.min(bound, wallClock.millis() - outOfOrderness);
        }
        return Math.floorDiv(bound, granularity) * granularity - 1;
    }

    @Override
    public void onEvent(SinkRecord record, long timestamp, WatermarkOutput output) {
        if (timestamp > maxTimestamp) {
            maxTimestamp = timestamp;
            emitIfAdvanced(output);
        }
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {
        // The wall-clock cap rises with time even when no reading arrives.
        emitIfAdvanced(output);
    }

    private void emitIfAdvanced(WatermarkOutput output) {
        long watermark = watermark(maxTimestamp, outOfOrderness, granularity, wallClock);
        if (watermark > emitted) {
            emitted = watermark;
            output.emitWatermark(new Watermark(watermark));
        }
    }
}
