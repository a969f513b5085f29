package io.periodtables.job;

import io.periodtables.archive.Archive;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.core.item.Rollups;
import io.periodtables.core.period.EndOfInput;
import io.periodtables.core.period.Period;
import io.periodtables.job.archive.ArchiveFileSystem;
import io.periodtables.job.archive.StoredItems;
import io.periodtables.job.rollups.RollupBuckets;
import io.periodtables.job.rotation.RollupLoadCounter;
import io.periodtables.job.rotation.RotationWiring;
import io.periodtables.job.rotation.WriteLoadCounter;
import io.periodtables.job.time.CheckpointedWatermark;
import io.periodtables.job.time.PeriodWindows;
import io.periodtables.job.time.ReadingWatermarks;
import io.periodtables.job.time.RouteLate;
import io.periodtables.job.time.SmallBatchTrigger;
import io.periodtables.job.time.SplitEventTime;
import io.periodtables.model.Reading;
import io.periodtables.model.RejectReason;
import io.periodtables.model.Rejection;
import io.periodtables.model.SinkRecord;
import io.periodtables.rotation.Rotation;
import io.periodtables.rotation.lifecycle.Lifecycle;
import io.periodtables.rotation.lifecycle.TableLoad;
import io.periodtables.sink.PeriodTableSink;
import io.periodtables.sink.latest.LatestSink;
import java.time.Clock;
import java.time.Instant;
import java.util.UUID;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The period-tables data flow (DESIGN.md "Data flow"), the same for the local run, the tests and
 * Managed Service for Apache Flink. Every operator has a fixed uid: changing one orphans its
 * state in savepoints.
 */
public final class PeriodTablesTopology {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodTablesTopology.class);

    /** Upper bound of the job's parallelism for as long as savepoints are kept; it fixes the key groups. */
    public static final int MAX_PARALLELISM = 720;

    public static final String WINDOWS_NAME = "Period windows";

    /** Readings that arrive after their period's grace: they go to the late table. */
    public static final OutputTag<Reading> LATE = new OutputTag<>("late", TypeInformation.of(Reading.class));

    /** Readings whose period is too far ahead for a table: they go to the rejected table ({@link ToPeriodTable}). */
    public static final OutputTag<SinkRecord> AHEAD =
            new OutputTag<>("ahead-of-watermark", TypeInformation.of(SinkRecord.class));

    private PeriodTablesTopology() {}

    /** Adds the topology to {@code env}, reading the source {@code config} asks for. */
    public static void build(StreamExecutionEnvironment env, PeriodTablesConfig config, Clock clock) {
        build(env, config, InputSource.of(config, clock));
    }

    /**
     * Adds the topology to {@code env}, reading {@code input}. Event time is tracked in the
     * source, one watermark per split (Kinesis shard), and the job's watermark is their minimum.
     */
    public static void build(StreamExecutionEnvironment env, PeriodTablesConfig config, InputSource input) {
        ArchiveRemovalCheck.check(env.getConfiguration(), config);
        env.setMaxParallelism(MAX_PARALLELISM);
        // every job graph is a new run of the writers and the rotation, also under a job id kept
        String run = UUID.randomUUID().toString();

        DataStreamSource<SinkRecord> source = env.fromSource(
                new SplitEventTime<>(input.source(), config, input.capAtWallClock()),
                ReadingWatermarks.strategy(config, input.capAtWallClock()),
                input.name(),
                TypeInformation.of(SinkRecord.class));
        source.uid(input.uid()).name(input.name());
        if (input.parallelism() > 0) {
            source.setParallelism(input.parallelism());
        }
        // a restore that changed a setting the state is laid out by fails here, before any record passes
        SingleOutputStreamOperator<SinkRecord> checked = source.transform(
                        "Redeploy check", TypeInformation.of(SinkRecord.class), new RedeployCheck(config))
                .uid("redeploy-check");
        SingleOutputStreamOperator<SinkRecord> checkpointed = checked.transform(
                        "Checkpointed watermark",
                        TypeInformation.of(SinkRecord.class),
                        new CheckpointedWatermark(config))
                .uid("checkpointed-watermark");
        SingleOutputStreamOperator<Reading> timed = checkpointed
                .process(new SplitRejected(), TypeInformation.of(Reading.class))
                .uid("split-rejected")
                .name("Readings and rejections");
        if (input.parallelism() > 0) {
            checked.setParallelism(input.parallelism());
            checkpointed.setParallelism(input.parallelism());
            timed.setParallelism(input.parallelism());
        }

        SingleOutputStreamOperator<SinkRecord> periodRecords = timed.keyBy(Reading::deviceId)
                .window(new PeriodWindows(
                        config.calendar(),
                        new SmallBatchTrigger(
                                config.get(ConfigKeys.WINDOW_FIRE_COUNT),
                                config.get(ConfigKeys.WINDOW_FIRE_DELAY).toMillis())))
                .allowedLateness(config.get(ConfigKeys.ALLOWED_LATENESS))
                .sideOutputLateData(LATE)
                .process(new ToPeriodTable(config), TypeInformation.of(SinkRecord.class))
                .uid("period-windows")
                .name(WINDOWS_NAME);

        ConfigKeys.LatePolicy latePolicy = config.get(ConfigKeys.LATE_POLICY);
        SingleOutputStreamOperator<SinkRecord> lateInShards = timed.getSideOutput(SplitRejected.LATE)
                .process(new RouteLate.InShards(latePolicy), TypeInformation.of(SinkRecord.class))
                .uid("late-router")
                .name("Late readings");
        if (input.parallelism() > 0) {
            lateInShards.setParallelism(input.parallelism());
        }
        DataStream<SinkRecord> late = periodRecords
                .getSideOutput(LATE)
                .process(new RouteLate.FromWindows(latePolicy), TypeInformation.of(SinkRecord.class))
                .uid("window-late")
                .name("Late in windows")
                .union(lateInShards);
        DataStream<SinkRecord> rejected =
                timed.getSideOutput(SplitRejected.REJECTED).union(periodRecords.getSideOutput(AHEAD));

        // Two sinks: the period records', chained to the windows (one input, so no hop between
        // tasks), and the few others', which come from both the source's and the windows' tasks.
        periodRecords
                .sinkTo(sink(config)
                        .writerGroup(RotationWiring.PERIOD_WRITERS)
                        .writerRun(run)
                        .build())
                .uid("period-sink")
                .name("DynamoDB period tables");
        late.union(rejected)
                .sinkTo(sink(config)
                        .writerGroup(RotationWiring.LATE_WRITERS)
                        .writerRun(run)
                        .build())
                .uid("late-rejected-sink")
                .name("DynamoDB late and rejected");
        SingleOutputStreamOperator<SinkRecord> rollupItems = Rollups.of(config)
                .map(rollups -> DataStreamUtils.reinterpretAsKeyedStream(
                                periodRecords, record -> record.reading().deviceId(), Types.STRING)
                        .transform(
                                "Rollups",
                                TypeInformation.of(SinkRecord.class),
                                RollupBuckets.operator(config, rollups))
                        .uid("rollups")
                        .name("Rollups"))
                .orElse(null);
        if (rollupItems != null) {
            // a bucket's item is rewritten as readings refine it: never by one that counted fewer
            // (a replay from a later stream position, an older version written after a newer one)
            rollupItems
                    .sinkTo(sink(config)
                            .writeThroughCheckpoints()
                            .replaceOnlyWhenNotSmaller(Rollups.READINGS)
                            .build())
                    .uid("rollups-sink")
                    .name("DynamoDB rollups");
        }
        if (config.get(ConfigKeys.LATEST_ENABLED)) {
            // One writer per sink's input: the period records' chained to the windows, the late ones'.
            periodRecords.sinkTo(new LatestSink(config)).uid("latest-sink").name("DynamoDB latest");
            late.sinkTo(new LatestSink(config)).uid("latest-late-sink").name("DynamoDB latest (late)");
        }
        if (config.find(ConfigKeys.ARCHIVE_PATH).isPresent()) {
            ArchiveFileSystem.require(config.get(ConfigKeys.ARCHIVE_PATH));
            Archive.attach(periodRecords.union(late), config, new StoredItems(config));
        }

        SingleOutputStreamOperator<TableLoad> load = timed.transform(
                        "Write load", TypeInformation.of(TableLoad.class), new WriteLoadCounter(config))
                .uid("write-load")
                .name("Write load");
        if (input.parallelism() > 0) {
            load.setParallelism(input.parallelism());
        }
        DataStream<TableLoad> loads = load;
        if (rollupItems != null) {
            // the next rollups table is prewarmed from this one's peak, as period tables are
            loads = load.union(rollupItems
                    .transform("Rollups write load", TypeInformation.of(TableLoad.class), new RollupLoadCounter())
                    .uid("rollups-write-load")
                    .name("Rollups write load"));
        }
        RotationWiring.attach(timed, loads, config, run);
    }

    /**
     * Logs what the topology makes of {@code archive.path}: whether retention waits for an archive. Once a
     * run, by the caller, after the {@link #build} it runs: a caller may build a graph first only to check
     * the settings (the local run does, before it deletes anything), which logged the line twice.
     */
    public static void logArchive(PeriodTablesConfig config) {
        if (config.find(ConfigKeys.ARCHIVE_PATH).isPresent()) {
            LOG.info(
                    "Archiving to {}: retention deletes a table only once its period's _SUCCESS marker is there",
                    config.get(ConfigKeys.ARCHIVE_PATH));
        } else {
            LOG.info("archive.path is not set: nothing is archived, retention deletes tables without an archive");
        }
    }

    /** A period-table sink whose missing and throttled tables the rotation's table owner answers. */
    private static PeriodTableSink.Builder sink(PeriodTablesConfig config) {
        return PeriodTableSink.builder().config(config).missingTableHandler(Rotation.tableOwner());
    }

    /**
     * Emits each fired reading for its period's table, or, for a reading whose period starts after
     * the next one of the later of the watermark and the wall clock, a rejection {@code
     * ahead-of-watermark} through {@link #AHEAD}: the table owner creates no table that far ahead,
     * and judging here, before the rollups, the latest table and the archive see the reading, keeps
     * them to what the period tables hold (the sink judges later, so never stricter). Counts the
     * fires ({@code windowFires}) and the readings they emit ({@code windowFiredReadings}): their
     * ratio tells whether the trigger fires on its count or on its delay.
     */
    public static final class ToPeriodTable extends ProcessWindowFunction<Reading, SinkRecord, String, TimeWindow> {
        private static final long serialVersionUID = 1L;

        private final Lifecycle lifecycle;
        private transient Counter fires;
        private transient Counter firedReadings;
        /** The highest watermark a fire of this subtask saw before the end of the input's. */
        private transient long lastWatermark;

        public ToPeriodTable(PeriodTablesConfig config) {
            this.lifecycle = Lifecycle.of(config);
        }

        @Override
        public void open(OpenContext openContext) {
            MetricGroup metrics = UserMetrics.of(getRuntimeContext().getMetricGroup());
            fires = metrics.counter(UserMetrics.WINDOW_FIRES);
            lastWatermark = Long.MIN_VALUE;
            firedReadings = metrics.counter(UserMetrics.WINDOW_FIRED_READINGS);
        }

        @Override
        public void process(String device, Context context, Iterable<Reading> readings, Collector<SinkRecord> out) {
            Period period = lifecycle.calendar().periodOf(context.window().getStart());
            long watermark = context.currentWatermark();
            // The end of the input's watermark says nothing about time: the last one before it then,
            // up to which the owner has created tables (event time can run ahead of the wall clock).
            if (!EndOfInput.is(watermark)) {
                lastWatermark = Math.max(lastWatermark, watermark);
            }
            Instant horizon = Instant.ofEpochMilli(
                    Math.max(EndOfInput.is(watermark) ? lastWatermark : watermark, context.currentProcessingTime()));
            boolean ahead = lifecycle.admission(period, horizon) == Lifecycle.Admission.AHEAD;
            long emitted = 0;
            for (Reading reading : readings) {
                if (ahead) {
                    context.output(
                            AHEAD,
                            SinkRecord.rejected(Rejection.of(
                                    RejectReason.AHEAD_OF_WATERMARK,
                                    "its period " + period.label() + " starts after the next one by event time "
                                            + horizon + "; no table is created that far ahead",
                                    Rejection.readingText(reading, true),
                                    context.currentProcessingTime(),
                                    WINDOWS_NAME)));
                } else {
                    out.collect(SinkRecord.period(reading));
                    emitted++;
                }
            }
            fires.inc();
            firedReadings.inc(emitted);
        }
    }
}
