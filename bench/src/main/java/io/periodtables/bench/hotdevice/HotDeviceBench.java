package io.periodtables.bench.hotdevice;

import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.BenchConfigs;
import io.periodtables.bench.BenchLog;
import io.periodtables.bench.BenchMetrics;
import io.periodtables.bench.Contenders;
import io.periodtables.bench.CpuClock;
import io.periodtables.bench.InstantDynamoDb;
import io.periodtables.bench.JfrSummary;
import io.periodtables.bench.MachineFacts;
import io.periodtables.bench.scale.ScaleBench;
import io.periodtables.bench.scale.ScaleReport;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.job.InputSource;
import io.periodtables.job.PeriodTablesTopology;
import io.periodtables.job.input.FleetGenerator;
import io.periodtables.job.input.ParsingGenerator;
import io.periodtables.model.SinkRecord;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * Benchmark 20 (issue 48): one device at 1,000 readings a second (a millisecond apart in event
 * time) among {@value #QUIET_DEVICES} quiet devices reading once every {@link #QUIET_EVERY} each
 * ({@link HotFleet}), paced at real time by the generator source's rate limiter, through the
 * production topology with rollups on RocksDB against {@link InstantDynamoDb}. Every
 * {@link #SAMPLE_EVERY} it samples the readings the rollups counted and the CPU time of the
 * process and of the task threads, so that CPU per reading over the run shows whether the hot
 * device's duplicate check ({@code RecentSortKeys}) costs more as its sort keys pile up.
 */
public final class HotDeviceBench {

    static final int QUIET_DEVICES = 10_000;
    static final Duration QUIET_EVERY = Duration.ofSeconds(60);
    static final Duration SAMPLE_EVERY = Duration.ofSeconds(30);
    /**
     * Sampled but not measured: the first minutes compile the code (a trial run at load 11-18 spent
     * 15 s of JIT CPU in its first minute, 20 s in its second) and would make later minutes look cheaper.
     */
    static final Duration WARM_UP = Duration.ofMinutes(2);
    /** Input past the measured minutes, so that the source is still feeding at the last sample. */
    private static final Duration SLACK = Duration.ofSeconds(20);

    /** The highest record index the source has generated (same JVM). */
    private static final AtomicLong GENERATED = new AtomicLong(-1);

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    public record Options(String command, int minutes) {}

    /**
     * The run at one instant, counted from its start: readings the rollups counted (all, and on the
     * hot device's subtask), CPU seconds of the process less the JIT compiler and the instant backend,
     * of the JIT compiler, of the two windows-and-rollups task threads and of the source's task
     * thread, GC pause millis, and the full size of the newest completed checkpoint.
     */
    record Sample(
            double wall,
            long generated,
            long readings,
            long hotSubtaskReadings,
            double cpu,
            double jit,
            double hotTask,
            double otherTask,
            double sourceTask,
            long gcMillis,
            long stateBytes) {}

    /**
     * The run: the hot device's subtask, the share of the quiet devices on it, the input rate, the
     * samples (the first {@code warmUp} intervals not measured), and the load average at start and end.
     */
    record Run(
            int hotSubtask,
            double quietShare,
            double perSecond,
            int warmUp,
            List<Sample> samples,
            String loadAtStart,
            String loadAtEnd) {}

    private HotDeviceBench() {}

    public static String run(Options options, Path benchDir) throws Exception {
        if (options.minutes() < 1) {
            throw new IllegalArgumentException("--hot-device-minutes must be at least 1, not " + options.minutes());
        }
        String loadAtStart = MachineFacts.loadAverage();
        try (InstantDynamoDb backend = InstantDynamoDb.start(1);
                BenchCluster cluster = new BenchCluster(ScaleBench.managedMemory())) {
            Run run = measure(cluster, backend, benchDir, options.minutes(), loadAtStart);
            return HotDeviceReport.markdown(options, run, benchDir);
        }
    }

    private static Run measure(
            BenchCluster cluster, InstantDynamoDb backend, Path benchDir, int minutes, String loadAtStart)
            throws Exception {
        Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Duration span = Duration.ofMinutes(minutes).plus(WARM_UP).plus(SLACK);
        // the generator.* keys this sets stay unused: the topology reads the bench's own source
        Map<String, String> keys = BenchConfigs.fleet(
                "hot" + System.currentTimeMillis() % 100_000, backend.endpoint(), 1, QUIET_DEVICES + 1, start, span);
        keys.put("tables.period", "P1D");
        keys.put("rollups.every", Contenders.ROLLUPS_EVERY);
        keys.put("latest.enabled", "true");
        PeriodTablesConfig config = BenchConfigs.load(keys);
        HotFleet fleet = new HotFleet(config, QUIET_DEVICES, QUIET_EVERY, start);
        long count = fleet.count(span);
        Path target = benchDir.toAbsolutePath().resolve("target");
        Configuration job = new Configuration();
        job.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        job.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        job.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        job.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                target.resolve("hot-device-checkpoints").toUri().toString());
        JobGraph graph = BenchCluster.graphOf(
                job,
                Contenders.CHECKPOINT_MILLIS,
                env -> PeriodTablesTopology.build(env, config, input(config, fleet, count)));
        int hot = KeyGroupRangeAssignment.assignKeyToParallelOperator(
                HotFleet.HOT_DEVICE, PeriodTablesTopology.MAX_PARALLELISM, BenchCluster.PARALLELISM);
        String hotThread = "(" + (hot + 1) + "/" + BenchCluster.PARALLELISM + ")#";
        BenchLog.log(String.format(
                Locale.ROOT,
                "hot device: %s at 1,000 readings/s among %,d devices at one every %s, %,.0f readings/s,"
                        + " %,d readings from %s; the hot device on subtask %d",
                HotFleet.HOT_DEVICE,
                QUIET_DEVICES,
                QUIET_EVERY,
                fleet.perSecond(),
                count,
                start,
                hot));

        for (String old : new String[] {"hot-device-first-minute.jfr", "hot-device-last-minute.jfr"}) {
            Files.deleteIfExists(target.resolve(old));
        }
        BenchMetrics.reset();
        GENERATED.set(-1);
        System.gc();
        JobID id = cluster.submit(graph);
        CompletableFuture<JobResult> result = cluster.miniCluster().requestJobResult(id);
        while (GENERATED.get() < 0 && !result.isDone()) {
            Thread.sleep(20);
        }
        double backendCpu = InstantDynamoDb.cpuSeconds();
        CpuClock clock = new CpuClock();
        Predicate<String> windows = name -> name.contains(PeriodTablesTopology.WINDOWS_NAME);
        List<Sample> samples = new ArrayList<>();
        int warmUp = (int) (WARM_UP.toMillis() / SAMPLE_EVERY.toMillis());
        int intervals = warmUp + (int) (Duration.ofMinutes(minutes).toMillis() / SAMPLE_EVERY.toMillis());
        for (int i = 0; i <= intervals && !result.isDone(); i++) {
            long due = i * SAMPLE_EVERY.toMillis();
            Thread.sleep(Math.max(0, due - (long) (clock.wallSeconds() * 1000)));
            Sample s = new Sample(
                    clock.wallSeconds(),
                    GENERATED.get() + 1,
                    BenchMetrics.sum(UserMetrics.ROLLUP_READINGS),
                    BenchMetrics.sum(UserMetrics.ROLLUP_READINGS, ".Rollups." + hot + "."),
                    clock.cpuSeconds() - clock.jitSeconds() - (InstantDynamoDb.cpuSeconds() - backendCpu),
                    clock.jitSeconds(),
                    threadCpu(windows.and(name -> name.contains(hotThread))),
                    threadCpu(windows.and(name -> !name.contains(hotThread))),
                    threadCpu(name -> name.contains(HotFleet.class.getSimpleName())),
                    gcMillis(),
                    stateBytes(cluster, id));
            samples.add(s);
            BenchLog.log(String.format(
                    Locale.ROOT,
                    "hot device: %.0f s, %,d generated, %,d counted by the rollups (%,d on the hot subtask),"
                            + " %.1f CPU s, state %s",
                    s.wall(),
                    s.generated(),
                    s.readings(),
                    s.hotSubtaskReadings(),
                    s.cpu(),
                    ScaleReport.bytes(s.stateBytes())));
            // a dump of the in-memory recording holds what was recorded since the dump before
            if (i == warmUp || i == intervals - 2) {
                dumpFlightRecording(target.resolve("hot-device-skipped.jfr"));
            } else if (i == warmUp + 2) {
                dumpFlightRecording(target.resolve("hot-device-first-minute.jfr"));
            } else if (i == intervals) {
                dumpFlightRecording(target.resolve("hot-device-last-minute.jfr"));
            }
        }
        profile(target);
        String loadAtEnd = MachineFacts.loadAverage();
        cluster.await(id, 10);
        if (samples.size() <= intervals) {
            throw new IllegalStateException("the hot-device job ended after " + samples.size() + " samples of "
                    + (intervals + 1) + ", before its input");
        }
        return new Run(hot, quietShare(hot), fleet.perSecond(), warmUp, samples, loadAtStart, loadAtEnd);
    }

    /** The full job's input: the fleet's JSON records at its real-time rate, parsed in the source. */
    private static InputSource input(PeriodTablesConfig config, HotFleet fleet, long count) {
        ParsingGenerator.Records records = n -> {
            GENERATED.accumulateAndGet(n, Math::max);
            return fleet.record(n);
        };
        return new InputSource(
                new DataGeneratorSource<>(
                        new ParsingGenerator(config, "generator", records),
                        count,
                        RateLimiterStrategy.perSecond(fleet.perSecond()),
                        TypeInformation.of(SinkRecord.class)),
                "generator-source",
                HotFleet.class.getSimpleName(),
                1,
                true);
    }

    /** The share of the quiet devices whose key is on {@code subtask}. */
    private static double quietShare(int subtask) {
        int on = 0;
        for (int d = 0; d < QUIET_DEVICES; d++) {
            if (KeyGroupRangeAssignment.assignKeyToParallelOperator(
                            FleetGenerator.deviceId(d), PeriodTablesTopology.MAX_PARALLELISM, BenchCluster.PARALLELISM)
                    == subtask) {
                on++;
            }
        }
        return (double) on / QUIET_DEVICES;
    }

    /** CPU seconds so far of the live threads whose name {@code which} accepts. */
    private static double threadCpu(Predicate<String> which) {
        long nanos = 0;
        for (ThreadInfo t : THREADS.getThreadInfo(THREADS.getAllThreadIds(), 0)) {
            if (t != null && which.test(t.getThreadName())) {
                nanos += Math.max(THREADS.getThreadCpuTime(t.getThreadId()), 0);
            }
        }
        return nanos / 1e9;
    }

    private static long gcMillis() {
        long millis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            millis += Math.max(gc.getCollectionTime(), 0);
        }
        return millis;
    }

    /** The full size of the job's newest completed checkpoint, 0 before the first. */
    private static long stateBytes(BenchCluster cluster, JobID id) {
        try {
            CheckpointStatsSnapshot stats =
                    cluster.miniCluster().getExecutionGraph(id).get().getCheckpointStatsSnapshot();
            CompletedCheckpointStats latest =
                    stats == null ? null : stats.getHistory().getLatestCompletedCheckpoint();
            return latest == null ? 0 : latest.getStateSize();
        } catch (Exception ended) {
            return 0;
        }
    }

    /** Where the CPU went in the first measured minute and in the last, from their flight recordings. */
    private static void profile(Path target) throws IOException {
        Path first = target.resolve("hot-device-first-minute.jfr");
        Path last = target.resolve("hot-device-last-minute.jfr");
        if (Files.isRegularFile(first) && Files.isRegularFile(last)) {
            Path md = target.resolve("hot-device-profile.md");
            Files.writeString(
                    md,
                    "# First measured minute\n\n" + JfrSummary.markdown(first, 40) + "# Last minute\n\n"
                            + JfrSummary.markdown(last, 40));
            BenchLog.log("hot device: profiles " + md);
        }
    }

    /**
     * What bench/run's in-memory flight recording holds (since its last dump), for a profile of the
     * run's first measured minute beside one of its last; nothing when no recording runs.
     */
    private static void dumpFlightRecording(Path to) throws Exception {
        if (!FlightRecorder.isInitialized()) {
            return;
        }
        for (Recording recording : FlightRecorder.getFlightRecorder().getRecordings()) {
            if (recording.getState() == RecordingState.RUNNING) {
                Files.createDirectories(to.getParent());
                Files.deleteIfExists(to);
                recording.dump(to);
                BenchLog.log("hot device: flight recording " + to);
                return;
            }
        }
    }
}
