package io.periodtables.job.rollups;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.Rollups;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.EndOfInput;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Rolls up each device's period readings (what the period windows emit: exactly the on-time
 * readings its period table holds) into the buckets of every grain of {@code rollups.every}, and
 * emits a bucket's item for its period's rollups table when the watermark passes the bucket's
 * end, again whenever a reading within the allowed lateness refines it, and never after the
 * period closes, when its state goes. The end of the input (a drained stop) writes every bucket
 * as it stands and keeps them: a run resumed from the savepoint goes on with them, and sets the
 * timers that watermark fired again, so their state still goes when their period closes.
 *
 * <p>A reading the input holds twice (same sort key: its item is written twice, stored once) is
 * counted once when its event time is within {@code rollups.exact-within} of the device's newest
 * reading of the same period ({@link RecentSortKeys}). An older reading
 * is counted without the check ({@code rollupUnchecked}): were it a duplicate, it would count
 * twice. Every aggregate is exact (decimal sums, first and last by event time then sort key), so a
 * bucket's item is the same whatever the order, speed or parallelism; only how often it is
 * rewritten varies.
 *
 * <p>State per device, independent of the reading rate over a period and of its length: for each
 * grain one {@link RollupAggregate} per bucket with readings in the open periods (at most 1,440 a
 * period and grain), the sort keys of its readings within {@code rollups.exact-within} (plus a
 * minute) of its newest one, one entry each, that reading's event time, one timer per bucket
 * and open period, and after a drained stop when its revive is due. A bucket's key names its grain by its length, so
 * {@code rollups.every} may
 * change across a restore: a kept grain carries on, a dropped one's buckets are never written
 * and go with their period (or at a revive), a new one starts at the restore.
 */
@Internal
public final class RollupBuckets extends KeyedProcessFunction<String, SinkRecord, SinkRecord> {
    private static final long serialVersionUID = 1L;

    /** Buckets refined after the watermark passed their end are written at the next whole second. */
    private static final long CATCH_UP_MILLIS = 1000;
    /** A run resumed after a drained stop sets its timers again this long after the stop. */
    private static final long REVIVE_AFTER_MILLIS = 60_000;

    /**
     * The buckets, keyed by their start and grain ({@link BucketKeys#key}): not {@code rollup-buckets}, whose
     * keys held the grain's position in {@code rollups.every} (the release before; {@link
     * RollupStateUpgrade} moves them here).
     */
    static final String BUCKETS = "rollup-grain-buckets";
    /** Buckets refined after the watermark passed their end, by {@link BucketKeys#key} (was {@code rollup-refined}). */
    static final String REFINED = "rollup-grain-refined";
    /** The processing time a device's revive is due at, after a drained stop ({@link #revive}). */
    static final String REVIVE = "rollup-revive-at";

    private final Rollups rollups;
    private final TableNaming naming;
    private final Duration lateness;
    private final Duration ttl;
    private final long exactWithin;

    /** The operator's keyed state backend, for the sort keys' state in namespaces. */
    private transient KeyedStateBackend<String> backend;

    private transient MapState<Long, RollupAggregate> buckets;
    private transient RecentSortKeys recent;
    /** Buckets refined after the watermark passed their end, for the next catch-up (a few at most). */
    private transient MapState<Long, Boolean> refined;
    /** When this device's revive is due; empty when none waits. */
    private transient ValueState<Long> reviveDue;

    private transient Counter readings;
    private transient Counter duplicates;
    private transient Counter unchecked;
    private transient Counter written;
    /** The processing time of this run's revive timers (0: none yet). */
    private transient long reviveAt;
    /** The period last looked up: consecutive readings of one period cost no calendar arithmetic. */
    private transient Period lastPeriod;

    RollupBuckets(PeriodTablesConfig config, Rollups rollups) {
        this.rollups = rollups;
        this.naming = config.naming();
        this.lateness = config.get(ConfigKeys.ALLOWED_LATENESS);
        this.ttl = config.ttl().orElse(null);
        this.exactWithin = config.get(ConfigKeys.ROLLUPS_EXACT_WITHIN).toMillis();
    }

    /** The operator of the rollups: it upgrades the state of a savepoint of an earlier release on restore. */
    public static RollupOperator operator(PeriodTablesConfig config, Rollups rollups) {
        return new RollupOperator(new RollupBuckets(config, rollups));
    }

    /** The bucket state: bucket key ({@link BucketKeys#key}) → its aggregate. */
    static MapStateDescriptor<Long, RollupAggregate> bucketsDescriptor() {
        return new MapStateDescriptor<>(BUCKETS, LongSerializer.INSTANCE, RollupAggregate.Serializer.INSTANCE);
    }

    static MapStateDescriptor<Long, Boolean> refinedDescriptor() {
        return new MapStateDescriptor<>(REFINED, LongSerializer.INSTANCE, BooleanSerializer.INSTANCE);
    }

    static ValueStateDescriptor<Long> reviveDescriptor() {
        return new ValueStateDescriptor<>(REVIVE, LongSerializer.INSTANCE);
    }

    /** Called by {@link RollupOperator} before {@link #open}, with its state restored and upgraded. */
    void useBackend(KeyedStateBackend<String> backend) {
        this.backend = backend;
    }

    Rollups rollups() {
        return rollups;
    }

    long exactWithin() {
        return exactWithin;
    }

    Duration lateness() {
        return lateness;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        buckets = getRuntimeContext().getMapState(bucketsDescriptor());
        recent = RecentSortKeys.of(
                backend, getRuntimeContext().getMapState(RecentSortKeys.newestDescriptor()), exactWithin);
        refined = getRuntimeContext().getMapState(refinedDescriptor());
        reviveDue = getRuntimeContext().getState(reviveDescriptor());
        MetricGroup metrics = UserMetrics.of(getRuntimeContext().getMetricGroup());
        readings = metrics.counter(UserMetrics.ROLLUP_READINGS);
        duplicates = metrics.counter(UserMetrics.ROLLUP_DUPLICATES);
        unchecked = metrics.counter(UserMetrics.ROLLUP_UNCHECKED);
        written = metrics.counter(UserMetrics.ROLLUP_BUCKETS_WRITTEN);
    }

    @Override
    public void processElement(SinkRecord record, Context ctx, Collector<SinkRecord> out) throws Exception {
        Reading reading = record.reading();
        String sk = WriteSharding.sortKeyOf(reading);
        Period period = periodOf(reading.eventMillis());
        switch (recent.check(reading.eventMillis(), sk, period)) {
            case DUPLICATE -> {
                duplicates.inc();
                return;
            }
            case UNCHECKED -> unchecked.inc(); // counted without the check
            case FIRST -> {}
        }
        readings.inc();
        Map<String, BigDecimal> values = rollups.numbersOf(reading.payloadJson());

        for (Duration grain : rollups.grains()) {
            long start = Rollups.bucketStart(period, grain, reading.eventMillis());
            long key = BucketKeys.key(start, grain);
            RollupAggregate aggregate = buckets.get(key);
            if (aggregate == null) {
                aggregate = new RollupAggregate();
            }
            aggregate.add(reading.eventMillis(), sk, values);
            buckets.put(key, aggregate); // RocksDB needs the put; on the heap it is the same object
            long end = Rollups.bucketEnd(period, grain, start);
            // Past the bucket's end, the timer fires at the next watermark (the end of the input's too).
            ctx.timerService().registerEventTimeTimer(end - 1);
            if (end - 1 <= ctx.timerService().currentWatermark()) {
                // The watermark has passed the bucket's end (the windows emit in small batches, after
                // it), and no further watermark comes while the input pauses: a processing-time timer
                // writes the refined bucket too.
                refined.put(key, Boolean.TRUE);
                long now = ctx.timerService().currentProcessingTime();
                ctx.timerService().registerProcessingTimeTimer(now - now % CATCH_UP_MILLIS + CATCH_UP_MILLIS);
            }
        }
        ctx.timerService().registerEventTimeTimer(period.closesAt(lateness));
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<SinkRecord> out) throws Exception {
        String device = ctx.getCurrentKey();
        long watermark = ctx.timerService().currentWatermark();
        if (ctx.timeDomain() == TimeDomain.PROCESSING_TIME) {
            // A device has one timer per instant: a revive and a catch-up may share it.
            Long revive = reviveDue.value();
            if (revive != null && revive <= timestamp) {
                reviveDue.clear();
                revive(ctx);
            }
            catchUp(device, watermark, out);
            return;
        }
        // The watermark that ends the input (a drained stop) closes no period: every bucket is
        // written as it stands and kept with its sort keys, so a run resumed from the savepoint
        // completes them; that watermark fires every timer, so the resumed run sets them again.
        boolean endOfInput = EndOfInput.is(watermark);
        Period period = periodOf(timestamp);
        for (Duration grain : rollups.grains()) {
            long start = Rollups.bucketStart(period, grain, timestamp);
            if (Rollups.bucketEnd(period, grain, start) - 1 == timestamp) {
                emitIfChanged(device, period, grain, start, out);
            }
        }
        if (endOfInput) {
            long at = reviveAt(ctx.timerService().currentProcessingTime());
            reviveDue.update(at);
            ctx.timerService().registerProcessingTimeTimer(at);
            return;
        }
        Period closing = rollups.calendar().periodOf(timestamp - lateness.toMillis());
        if (closing.closesAt(lateness) == timestamp) {
            forget(device, closing, out);
        }
    }

    /**
     * When a run resumed after a drained stop sets its timers again: a minute after the stop (the
     * timer and {@link #REVIVE} wait in the savepoint).
     */
    private long reviveAt(long now) {
        if (reviveAt == 0) {
            reviveAt = now - now % CATCH_UP_MILLIS + REVIVE_AFTER_MILLIS;
        }
        return reviveAt;
    }

    /**
     * Sets again the event-time timers a drained stop's last watermark fired: each bucket's end
     * and its period's close. Without them a device that stays silent
     * after the resume would keep its state for good. Buckets of a grain no longer in {@code
     * rollups.every} go.
     */
    private void revive(OnTimerContext ctx) throws Exception {
        List<Long> dropped = new ArrayList<>();
        for (Long key : buckets.keys()) {
            long start = BucketKeys.startOf(key);
            Period period = periodOf(start);
            Duration grain = grainOf(key);
            if (grain == null) {
                dropped.add(key);
                continue;
            }
            ctx.timerService().registerEventTimeTimer(Rollups.bucketEnd(period, grain, start) - 1);
            ctx.timerService().registerEventTimeTimer(period.closesAt(lateness));
        }
        for (long key : dropped) {
            buckets.remove(key);
        }
    }

    /** Writes every changed bucket of {@code device} whose end the watermark has passed. */
    private void catchUp(String device, long watermark, Collector<SinkRecord> out) throws Exception {
        // only the buckets refined after their end since the last catch-up: never a scan of them all
        List<Long> keys = new ArrayList<>();
        refined.keys().forEach(keys::add);
        refined.clear();
        for (long key : keys) {
            long start = BucketKeys.startOf(key);
            Duration grain = grainOf(key);
            if (grain != null
                    && buckets.contains(key)
                    && Rollups.bucketEnd(periodOf(start), grain, start) - 1 <= watermark) {
                emitIfChanged(device, periodOf(start), grain, start, out);
            }
        }
    }

    private void emitIfChanged(String device, Period period, Duration grain, long start, Collector<SinkRecord> out)
            throws Exception {
        long key = BucketKeys.key(start, grain);
        RollupAggregate aggregate = buckets.get(key);
        if (aggregate == null || !aggregate.changed()) {
            return;
        }
        Rollups.Bucket bucket = aggregate.bucket(device, grain, start);
        out.collect(SinkRecord.item(naming.rollupsTable(period), ItemAttributes.toJson(bucket.item(ttl))));
        written.inc();
        aggregate.written();
        buckets.put(key, aggregate);
    }

    /**
     * {@code period} has closed: writes what changed since (nothing, as every bucket ended before),
     * then drops its buckets and sort keys and those of any earlier period (a grain no longer in
     * {@code rollups.every} without a write).
     */
    private void forget(String device, Period period, Collector<SinkRecord> out) throws Exception {
        List<Long> keys = new ArrayList<>();
        for (Long key : buckets.keys()) {
            if (BucketKeys.startOf(key) < period.endMillis()) {
                keys.add(key);
            }
        }
        for (long key : keys) {
            long start = BucketKeys.startOf(key);
            Duration grain = grainOf(key);
            if (grain != null) {
                emitIfChanged(device, rollups.calendar().periodOf(start), grain, start, out);
            }
            buckets.remove(key);
        }
        recent.forget(period.endMillis());
        refined.clear(); // what it held is written above, or of a closed period
    }

    private Period periodOf(long eventMillis) {
        if (lastPeriod == null || eventMillis < lastPeriod.startMillis() || eventMillis >= lastPeriod.endMillis()) {
            lastPeriod = rollups.calendar().periodOf(eventMillis);
        }
        return lastPeriod;
    }

    /** The grain of {@code key}, or null when it is no longer in {@code rollups.every}. */
    private Duration grainOf(long key) {
        return BucketKeys.grainOf(key, rollups.grains());
    }
}
