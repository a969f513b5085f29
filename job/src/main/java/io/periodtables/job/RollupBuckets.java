package io.periodtables.job;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.Rollups;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Rolls up each device's period readings (what the period windows emit: exactly the on-time
 * readings its period table holds) into the buckets of every grain of {@code rollups.every}, and
 * emits a bucket's item for its period's rollups table when the watermark passes the bucket's
 * end, again whenever a reading within the allowed lateness refines it, and never after the
 * period closes, when its state goes. The end of the input (a drained stop) writes every bucket
 * as it stands and keeps them: a run resumed from the savepoint goes on with them.
 *
 * <p>A reading the input holds twice (same sort key: its item is written twice, stored once) is
 * counted once: the sort keys of the open periods are kept per device. Every aggregate is exact
 * (decimal sums, first and last by event time then sort key), so a bucket's item is the same
 * whatever the order, speed or parallelism; only how often it is rewritten varies.
 *
 * <p>State per device: for each grain one {@link RollupAggregate} per bucket with readings in the
 * open periods, and the sort keys of those periods' readings.
 */
final class RollupBuckets extends KeyedProcessFunction<String, SinkRecord, SinkRecord> {
    private static final long serialVersionUID = 1L;

    private static final JsonFactory JSON = new JsonFactory();
    /** Buckets refined after the watermark passed their end are written at the next whole second. */
    private static final long CATCH_UP_MILLIS = 1000;

    private final Rollups rollups;
    private final TableNaming naming;
    private final WriteSharding sharding;
    private final Duration lateness;
    private final Duration ttl;

    private transient MapState<Long, RollupAggregate> buckets;
    private transient MapState<String, Boolean> seen;
    private transient Counter readings;
    private transient Counter duplicates;
    private transient Counter written;
    /** The period last looked up: consecutive readings of one period cost no calendar arithmetic. */
    private transient Period lastPeriod;

    RollupBuckets(PeriodTablesConfig config, Rollups rollups) {
        this.rollups = rollups;
        this.naming = config.naming();
        this.sharding = config.sharding();
        this.lateness = config.get(ConfigKeys.ALLOWED_LATENESS);
        this.ttl = config.ttl().orElse(null);
    }

    @Override
    public void open(OpenContext openContext) {
        buckets = getRuntimeContext()
                .getMapState(new MapStateDescriptor<>(
                        "rollup-buckets", LongSerializer.INSTANCE, RollupAggregate.Serializer.INSTANCE));
        seen = getRuntimeContext()
                .getMapState(
                        new MapStateDescriptor<>("rollup-seen", StringSerializer.INSTANCE, BooleanSerializer.INSTANCE));
        MetricGroup metrics = UserMetrics.of(getRuntimeContext().getMetricGroup());
        readings = metrics.counter(UserMetrics.ROLLUP_READINGS);
        duplicates = metrics.counter(UserMetrics.ROLLUP_DUPLICATES);
        written = metrics.counter(UserMetrics.ROLLUP_BUCKETS_WRITTEN);
    }

    @Override
    public void processElement(SinkRecord record, Context ctx, Collector<SinkRecord> out) throws Exception {
        Reading reading = record.reading();
        String sk = sharding.keyOf(reading.deviceId(), reading.eventMillis(), reading.eventId(), reading.canonical())
                .sk();
        if (seen.contains(sk)) {
            duplicates.inc();
            return;
        }
        seen.put(sk, Boolean.TRUE);
        readings.inc();
        Map<String, BigDecimal> values = numbers(reading.payloadJson());
        Period period = periodOf(reading.eventMillis());
        List<Duration> grains = rollups.grains();
        for (int g = 0; g < grains.size(); g++) {
            long start = Rollups.bucketStart(period, grains.get(g), reading.eventMillis());
            long key = key(start, g);
            RollupAggregate aggregate = buckets.get(key);
            if (aggregate == null) {
                aggregate = new RollupAggregate();
            }
            aggregate.add(reading.eventMillis(), sk, values);
            buckets.put(key, aggregate); // RocksDB needs the put; on the heap it is the same object
            long end = Rollups.bucketEnd(period, grains.get(g), start);
            // Past the bucket's end, the timer fires at the next watermark (the end of the input's too).
            ctx.timerService().registerEventTimeTimer(end - 1);
            if (end - 1 <= ctx.timerService().currentWatermark()) {
                // The watermark has passed the bucket's end (the windows emit in small batches, after
                // it), and no further watermark comes while the input pauses: a processing-time timer
                // writes the refined bucket too.
                long now = ctx.timerService().currentProcessingTime();
                ctx.timerService().registerProcessingTimeTimer(now - now % CATCH_UP_MILLIS + CATCH_UP_MILLIS);
            }
        }
        ctx.timerService().registerEventTimeTimer(period.closesAt(lateness));
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<SinkRecord> out) throws Exception {
        String device = ctx.getCurrentKey();
        if (ctx.timeDomain() == TimeDomain.PROCESSING_TIME) {
            catchUp(device, ctx.timerService().currentWatermark(), out);
            return;
        }
        Period period = periodOf(timestamp);
        List<Duration> grains = rollups.grains();
        for (int g = 0; g < grains.size(); g++) {
            long start = Rollups.bucketStart(period, grains.get(g), timestamp);
            if (Rollups.bucketEnd(period, grains.get(g), start) - 1 == timestamp) {
                emitIfChanged(device, period, g, start, out);
            }
        }
        Period closing = rollups.calendar().periodOf(timestamp - lateness.toMillis());
        // The watermark that ends the input (a drained stop) closes no period: the buckets are
        // written as they stand and kept, so a run resumed from the savepoint completes them.
        if (closing.closesAt(lateness) == timestamp && ctx.timerService().currentWatermark() != Long.MAX_VALUE) {
            forget(device, closing, out);
        }
    }

    /** Writes every changed bucket of {@code device} whose end the watermark has passed. */
    private void catchUp(String device, long watermark, Collector<SinkRecord> out) throws Exception {
        List<Long> ended = new ArrayList<>();
        for (Long key : buckets.keys()) {
            long start = key / Rollups.MAX_GRAINS;
            Duration grain = rollups.grains().get((int) (key % Rollups.MAX_GRAINS));
            if (Rollups.bucketEnd(periodOf(start), grain, start) - 1 <= watermark) {
                ended.add(key);
            }
        }
        for (long key : ended) {
            long start = key / Rollups.MAX_GRAINS;
            emitIfChanged(device, periodOf(start), (int) (key % Rollups.MAX_GRAINS), start, out);
        }
    }

    private void emitIfChanged(String device, Period period, int grain, long start, Collector<SinkRecord> out)
            throws Exception {
        long key = key(start, grain);
        RollupAggregate aggregate = buckets.get(key);
        if (aggregate == null || !aggregate.changed()) {
            return;
        }
        Rollups.Bucket bucket = aggregate.bucket(device, rollups.grains().get(grain), start);
        out.collect(SinkRecord.item(naming.rollupsTable(period), ItemAttributes.toJson(bucket.item(ttl))));
        written.inc();
        aggregate.written();
        buckets.put(key, aggregate);
    }

    /**
     * {@code period} has closed: writes what changed since (nothing, as every bucket ended before),
     * then drops its state and that of any earlier period (one a drained stop left behind).
     */
    private void forget(String device, Period period, Collector<SinkRecord> out) throws Exception {
        List<Long> keys = new ArrayList<>();
        for (Long key : buckets.keys()) {
            if (key / Rollups.MAX_GRAINS < period.endMillis()) {
                keys.add(key);
            }
        }
        for (long key : keys) {
            long start = key / Rollups.MAX_GRAINS;
            emitIfChanged(device, rollups.calendar().periodOf(start), (int) (key % Rollups.MAX_GRAINS), start, out);
            buckets.remove(key);
        }
        Iterator<String> sks = seen.keys().iterator();
        while (sks.hasNext()) {
            if (WriteSharding.eventMillisOf(sks.next()) < period.endMillis()) {
                sks.remove();
            }
        }
    }

    private Period periodOf(long eventMillis) {
        if (lastPeriod == null || eventMillis < lastPeriod.startMillis() || eventMillis >= lastPeriod.endMillis()) {
            lastPeriod = rollups.calendar().periodOf(eventMillis);
        }
        return lastPeriod;
    }

    private static long key(long bucketStart, int grain) {
        return bucketStart * Rollups.MAX_GRAINS + grain;
    }

    /** The top-level numeric fields of a canonical payload that are rolled up. */
    private Map<String, BigDecimal> numbers(String payloadJson) {
        Map<String, BigDecimal> numbers = new java.util.TreeMap<>();
        try (JsonParser parser = JSON.createParser(payloadJson)) {
            parser.nextToken(); // the object
            String field;
            while ((field = parser.nextFieldName()) != null) {
                JsonToken value = parser.nextToken();
                if ((value == JsonToken.VALUE_NUMBER_INT || value == JsonToken.VALUE_NUMBER_FLOAT)
                        && rollups.includes(field)) {
                    numbers.put(field, new BigDecimal(parser.getText()));
                } else {
                    parser.skipChildren();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("a stored reading's payload is not JSON: " + payloadJson, e);
        }
        return numbers;
    }
}
