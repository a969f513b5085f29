package io.periodtables.job;

import io.periodtables.conf.ConfigKeys;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.sink.PeriodTableSink;
import io.periodtables.sink.Reading;
import io.periodtables.sink.SinkRecord;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import java.nio.charset.StandardCharsets;
import java.time.Clock;

/**
 * The period-tables data flow (DESIGN.md "Data flow"), the same for the local run, the tests and
 * Managed Service for Apache Flink. Every operator has a fixed uid: changing one orphans its
 * state in savepoints.
 */
public final class PeriodTablesTopology {

    /** Upper bound of the job's parallelism for as long as savepoints are kept; it fixes the key groups. */
    public static final int MAX_PARALLELISM = 720;

    static final String WINDOWS_NAME = "Period windows";
    static final String WRITTEN_METRIC = "recordsWritten";
    static final String TABLES_CREATED_METRIC = "tablesCreated";

    /** Readings that arrive after their period's grace: they go to the late table. */
    static final OutputTag<Reading> LATE = new OutputTag<>("late", TypeInformation.of(Reading.class));

    private PeriodTablesTopology() {}

    /** Adds the topology to {@code env}. */
    public static void build(StreamExecutionEnvironment env, PeriodTablesConfig config, Clock clock) {
        env.setMaxParallelism(MAX_PARALLELISM);

        DataStream<RawRecord> raw = source(env, config, clock);
        SingleOutputStreamOperator<Reading> parsed = raw
                .process(new ParseRecords(config), TypeInformation.of(Reading.class))
                .uid("parse").name("Parse and validate");

        SingleOutputStreamOperator<Reading> timed = parsed
                .assignTimestampsAndWatermarks(WatermarkStrategy
                        .<Reading>forBoundedOutOfOrderness(config.get(ConfigKeys.OUT_OF_ORDERNESS))
                        .withIdleness(config.get(ConfigKeys.IDLENESS))
                        .withTimestampAssigner((reading, previous) -> reading.eventMillis()))
                .uid("watermarks").name("Event time")
                .transform("Checkpointed watermark", TypeInformation.of(Reading.class), new CheckpointedWatermark())
                .uid("checkpointed-watermark");

        SingleOutputStreamOperator<SinkRecord> periodRecords = timed
                .keyBy(Reading::deviceId)
                .window(new PeriodWindows(config.calendar(), new SmallBatchTrigger(
                        config.get(ConfigKeys.WINDOW_FIRE_COUNT), config.get(ConfigKeys.WINDOW_FIRE_DELAY).toMillis())))
                .allowedLateness(config.get(ConfigKeys.ALLOWED_LATENESS))
                .sideOutputLateData(LATE)
                .process(new ToPeriodTable(), TypeInformation.of(SinkRecord.class))
                .uid("period-windows").name(WINDOWS_NAME);

        DataStream<SinkRecord> late = periodRecords.getSideOutput(LATE)
                .map(new RouteLate(config.get(ConfigKeys.LATE_POLICY)), TypeInformation.of(SinkRecord.class))
                .uid("late-router").name("Late readings");
        DataStream<SinkRecord> rejected = parsed.getSideOutput(ParseRecords.REJECTED)
                .map(SinkRecord::rejected, TypeInformation.of(SinkRecord.class))
                .uid("rejected-router").name("Rejected input");

        periodRecords.union(late, rejected)
                .sinkTo(sink(config))
                .uid("period-sink").name("DynamoDB period tables");

        RotationWiring.attach(timed, config);
    }

    private static PeriodTableSink sink(PeriodTablesConfig config) {
        return PeriodTableSink.builder()
                .config(config)
                .missingTableHandler(RotationWiring.missingTableHandler(config))
                .build();
    }

    private static DataStream<RawRecord> source(StreamExecutionEnvironment env, PeriodTablesConfig config, Clock clock) {
        if (config.get(ConfigKeys.SOURCE) == ConfigKeys.SourceKind.KINESIS) {
            return env.fromSource(KinesisInput.source(config, new KinesisInput.RawSchema()), WatermarkStrategy.noWatermarks(), "Kinesis",
                            TypeInformation.of(RawRecord.class))
                    .uid("kinesis-source").name("Kinesis");
        }
        return env.fromSource(FleetGenerator.source(config, clock.instant()), WatermarkStrategy.noWatermarks(), "Fleet")
                .setParallelism(1)
                .uid("generator-source").name("Synthetic fleet")
                .map(json -> new RawRecord(json.getBytes(StandardCharsets.UTF_8), "generator"),
                        TypeInformation.of(RawRecord.class))
                .setParallelism(1)
                .uid("generator-bytes").name("Fleet records");
    }

    /** Emits each fired reading for its period's table. */
    static final class ToPeriodTable extends ProcessWindowFunction<Reading, SinkRecord, String, TimeWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void process(String device, Context context, Iterable<Reading> readings, Collector<SinkRecord> out) {
            for (Reading reading : readings) {
                out.collect(SinkRecord.period(reading));
            }
        }
    }
}
