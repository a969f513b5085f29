package io.periodtables.job.reliability;

import io.periodtables.conf.ConfigKeys;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.job.CheckpointedWatermark;
import io.periodtables.job.ParseRecords;
import io.periodtables.job.PeriodTablesTopology;
import io.periodtables.job.PeriodWindows;
import io.periodtables.job.RawRecord;
import io.periodtables.job.RotationWiring;
import io.periodtables.job.SmallBatchTrigger;
import io.periodtables.rotation.Rotation;
import io.periodtables.sink.PeriodTableSink;
import io.periodtables.sink.Reading;
import io.periodtables.sink.SinkRecord;

import org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.time.Duration;
import java.util.ArrayList;

/**
 * The topology of {@link PeriodTablesTopology#build}, operator for operator, fed by a bounded
 * source of {@link RawRecord}s instead of Kinesis or the generator (the production topology
 * chooses its source from the configuration and offers no seam for another one). The same
 * public pieces: {@link ParseRecords}, bounded out-of-orderness event time, {@link PeriodWindows}
 * with the {@link SmallBatchTrigger}, allowed lateness and the late side output, the
 * {@link PeriodTableSink} with production's {@link RotationWiring#missingTableHandler}, and
 * {@link Rotation} on a sparse tick stream. Every DynamoDB client of the test JVM carries
 * {@code DynamoDbFaults} (registered for the SDK under
 * {@code software/amazon/awssdk/services/dynamodb/execution.interceptors}).
 *
 * <p>Two deliberate differences, both for determinism: the source, parser and watermarks run at
 * parallelism 1, and the watermark (production's value: max timestamp − out-of-orderness − 1 ms)
 * is emitted after every reading instead of every 200 ms, so which readings are late does not
 * depend on timing and {@link ExpectedTables} can predict it.
 */
final class ReliabilityTopology {
    private static final OutputTag<Reading> LATE = new OutputTag<>("late", TypeInformation.of(Reading.class));

    private ReliabilityTopology() {}

    /** Hooks into the topology for process faults; identity maps by default. */
    static final class Hooks {
        RateLimiterStrategy rate = RateLimiterStrategy.noOp();
        MapFunction<Reading, Reading> afterParse;
        MapFunction<SinkRecord, SinkRecord> beforeSink;
    }

    static void build(StreamExecutionEnvironment env, PeriodTablesConfig config, TestInput input, Hooks hooks) {
        env.setMaxParallelism(PeriodTablesTopology.MAX_PARALLELISM);
        DataStream<RawRecord> raw = env.fromSource(source(input, hooks.rate), WatermarkStrategy.noWatermarks(), "Test input")
                .setParallelism(1);
        SingleOutputStreamOperator<Reading> parsed = raw
                .process(new ParseRecords(config), TypeInformation.of(Reading.class))
                .setParallelism(1).name("Parse and validate");
        DataStream<Reading> checked = hooks.afterParse == null ? parsed
                : parsed.map(hooks.afterParse, TypeInformation.of(Reading.class)).setParallelism(1).name("After parse");

        long outOfOrderness = config.get(ConfigKeys.OUT_OF_ORDERNESS).toMillis();
        SingleOutputStreamOperator<Reading> timed = checked
                .assignTimestampsAndWatermarks(WatermarkStrategy
                        .<Reading>forGenerator(ctx -> new EveryReading(Duration.ofMillis(outOfOrderness)))
                        .withIdleness(config.get(ConfigKeys.IDLENESS))
                        .withTimestampAssigner((reading, previous) -> reading.eventMillis()))
                .setParallelism(1).name("Event time")
                .transform("Checkpointed watermark", TypeInformation.of(Reading.class), new CheckpointedWatermark())
                .setParallelism(1);

        SingleOutputStreamOperator<SinkRecord> periodRecords = timed
                .keyBy(Reading::deviceId)
                .window(new PeriodWindows(config.calendar(), new SmallBatchTrigger(
                        config.get(ConfigKeys.WINDOW_FIRE_COUNT), config.get(ConfigKeys.WINDOW_FIRE_DELAY).toMillis())))
                .allowedLateness(config.get(ConfigKeys.ALLOWED_LATENESS))
                .sideOutputLateData(LATE)
                .process(new ToPeriodTable(), TypeInformation.of(SinkRecord.class))
                .name("Period windows");
        boolean lateToPeriod = config.get(ConfigKeys.LATE_POLICY) == ConfigKeys.LatePolicy.PERIOD_TABLE;
        DataStream<SinkRecord> late = periodRecords.getSideOutput(LATE)
                .map(reading -> lateToPeriod ? SinkRecord.period(reading) : SinkRecord.late(reading),
                        TypeInformation.of(SinkRecord.class))
                .name("Late readings");
        DataStream<SinkRecord> rejected = parsed.getSideOutput(ParseRecords.REJECTED)
                .map(SinkRecord::rejected, TypeInformation.of(SinkRecord.class))
                .name("Rejected input");

        DataStream<SinkRecord> toSink = periodRecords.union(late, rejected);
        if (hooks.beforeSink != null) {
            toSink = toSink.map(hooks.beforeSink, TypeInformation.of(SinkRecord.class)).name("Before sink");
        }
        toSink.sinkTo(PeriodTableSink.builder()
                        .config(config)
                        .missingTableHandler(RotationWiring.missingTableHandler(config))
                        .build())
                .name("DynamoDB period tables");

        Rotation.attach(timed.process(new Ticks(), Types.LONG).name("Rotation ticks"), config);
    }

    private static DataGeneratorSource<RawRecord> source(TestInput input, RateLimiterStrategy rate) {
        ArrayList<byte[]> records = new ArrayList<>(input.data());
        GeneratorFunction<Long, RawRecord> byIndex = index -> new RawRecord(records.get(index.intValue()), TestInput.ORIGIN);
        return new DataGeneratorSource<>(byIndex, records.size(), rate, TypeInformation.of(RawRecord.class));
    }

    /** Production's bounded out-of-orderness watermark, emitted after every reading. */
    private static final class EveryReading extends BoundedOutOfOrdernessWatermarks<Reading> {
        EveryReading(Duration outOfOrderness) {
            super(outOfOrderness);
        }

        @Override
        public void onEvent(Reading event, long eventTimestamp, WatermarkOutput output) {
            super.onEvent(event, eventTimestamp, output);
            onPeriodicEmit(output);
        }
    }

    /** As the production topology: every fired reading goes to its period's table. */
    private static final class ToPeriodTable extends ProcessWindowFunction<Reading, SinkRecord, String, TimeWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void process(String device, Context context, Iterable<Reading> readings, Collector<SinkRecord> out) {
            readings.forEach(reading -> out.collect(SinkRecord.period(reading)));
        }
    }

    /** As production's rotation ticks: at most one event time per subtask and second. */
    private static final class Ticks extends ProcessFunction<Reading, Long> {
        private static final long serialVersionUID = 1L;
        private transient long nextTick;

        @Override
        public void processElement(Reading reading, Context ctx, Collector<Long> out) {
            long now = ctx.timerService().currentProcessingTime();
            if (now >= nextTick) {
                nextTick = now + 1000;
                out.collect(reading.eventMillis());
            }
        }
    }
}
