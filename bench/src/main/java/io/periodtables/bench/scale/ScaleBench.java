package io.periodtables.bench.scale;

import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.BenchConfigs;
import io.periodtables.bench.BenchLog;
import io.periodtables.bench.BenchMetrics;
import io.periodtables.bench.Contenders;
import io.periodtables.bench.CpuClock;
import io.periodtables.bench.InstantDynamoDb;
import io.periodtables.bench.MachineFacts;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.job.InputSource;
import io.periodtables.job.PeriodTablesTopology;
import io.periodtables.job.input.FleetGenerator;
import io.periodtables.job.input.ParsingGenerator;
import io.periodtables.model.SinkRecord;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.jobgraph.JobGraph;

/**
 * Benchmark 14 (issue 39): the production topology on RocksDB with incremental checkpoints,
 * rollups {@code PT1M,PT1H} ({@code BENCH_ROLLUPS_EVERY}, as for the e2e bench) and the latest table on, daily periods,
 * against {@link InstantDynamoDb},
 * its event time compressed (the unthrottled generator). A dense day (one reading per device per
 * event-minute) and a sparse week (one per device per event-hour): the checkpoints' full and
 * incremental sizes and durations as the simulated time passes, from the checkpoint statistics of
 * the MiniCluster (those the REST API serves). State per device must not grow with the readings
 * of an open period, and nothing may stay of a closed one.
 */
public final class ScaleBench {

    /**
     * Parts of the bench and their sizes; {@code before} is the samples file of another build,
     * {@code from} one of an earlier run to render instead of running.
     */
    public record Options(
            String command,
            List<String> parts,
            int dayDevices,
            int weekDevices,
            long checkpointMillis,
            Path before,
            Path from) {}

    /** One part's run. */
    record Part(
            String name,
            int devices,
            long readings,
            Duration perDevice,
            int periods,
            double wall,
            double jobCpu,
            long peakHeap,
            long peakRss,
            List<ScaleSample> checkpoints) {
        double perCore() {
            return readings / jobCpu;
        }
    }

    /** The highest record index the source has generated: where the input is (same JVM). */
    private static final AtomicLong GENERATED = new AtomicLong(-1);
    /** The task manager's managed memory (RocksDB's block cache and write buffers), both slots. */
    public static final String MANAGED_MEMORY = "512m";

    private ScaleBench() {}

    public static String run(Options options, Path benchDir) throws Exception {
        String load = MachineFacts.loadAverage();
        if (options.from() != null) {
            return ScaleReport.markdown(
                    options, ScaleReport.fromSamples(options), ScaleSample.read(options.before()), load, benchDir);
        }
        List<Part> parts = new ArrayList<>();
        Instant today = Instant.now().truncatedTo(ChronoUnit.DAYS);
        try (InstantDynamoDb backend = InstantDynamoDb.start(1);
                BenchCluster cluster = new BenchCluster(managedMemory())) {
            for (String part : options.parts()) {
                parts.add(
                        switch (part) {
                            case "day" ->
                                runPart(
                                        cluster,
                                        backend,
                                        benchDir,
                                        "day",
                                        options.dayDevices(),
                                        Duration.ofMinutes(1),
                                        1,
                                        today.minus(Duration.ofDays(2)),
                                        options.checkpointMillis());
                            case "week" ->
                                runPart(
                                        cluster,
                                        backend,
                                        benchDir,
                                        "week",
                                        options.weekDevices(),
                                        Duration.ofHours(1),
                                        7,
                                        today.minus(Duration.ofDays(8)),
                                        options.checkpointMillis());
                            default ->
                                throw new IllegalArgumentException(
                                        "unknown part " + part + " of --scale-parts; expected day, week");
                        });
            }
        }
        Path samples = benchDir.resolve("target").resolve("scale-samples.tsv");
        Files.createDirectories(samples.getParent());
        Files.write(
                samples,
                parts.stream()
                        .flatMap(p -> p.checkpoints().stream())
                        .map(ScaleSample::tsv)
                        .toList());
        BenchLog.log("scale samples: " + samples.toAbsolutePath());
        return ScaleReport.markdown(options, parts, ScaleSample.read(options.before()), load, benchDir);
    }

    private static Part runPart(
            BenchCluster cluster,
            InstantDynamoDb backend,
            Path benchDir,
            String name,
            int devices,
            Duration perDevice,
            int days,
            Instant start,
            long checkpointMillis)
            throws Exception {
        long readings = devices * (Duration.ofDays(days).toMillis() / perDevice.toMillis());
        Duration span = perDevice.multipliedBy(days * (Duration.ofDays(1).toMillis() / perDevice.toMillis()));
        Map<String, String> keys = BenchConfigs.fleet(
                "scale" + name + System.currentTimeMillis() % 100_000,
                backend.endpoint(),
                readings,
                devices,
                start,
                span);
        keys.put("tables.period", "P1D");
        keys.put("rollups.every", Contenders.ROLLUPS_EVERY);
        keys.put("latest.enabled", "true");
        PeriodTablesConfig config = BenchConfigs.load(keys);
        FleetGenerator fleet = FleetGenerator.of(config, start);
        Path checkpoints = benchDir.toAbsolutePath()
                .resolve("target")
                .resolve("scale-checkpoints")
                .resolve(name);
        Configuration job = new Configuration();
        job.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        job.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        job.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        job.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
        JobGraph graph = BenchCluster.graphOf(
                job, checkpointMillis, env -> PeriodTablesTopology.build(env, config, input(config, fleet, readings)));
        BenchLog.log(String.format(
                Locale.ROOT,
                "scale %s: %,d devices, a reading per device every %s of event time, %,d readings from %s,"
                        + " checkpoints every %d ms into %s",
                name,
                devices,
                perDevice,
                readings,
                start,
                checkpointMillis,
                checkpoints));

        BenchMetrics.reset();
        GENERATED.set(-1);
        System.gc();
        double backendCpu = InstantDynamoDb.cpuSeconds();
        CpuClock clock = new CpuClock();
        // wall-clock millis -> simulated millis of the newest generated reading
        ConcurrentSkipListMap<Long, Long> progress = new ConcurrentSkipListMap<>();
        Map<Long, ScaleSample> completed = new TreeMap<>();
        long peakHeap = 0;
        long peakRss = 0;
        JobID id = cluster.submit(graph);
        var result = cluster.miniCluster().requestJobResult(id);
        long logged = System.currentTimeMillis();
        while (!result.isDone()) {
            long at = System.currentTimeMillis();
            long n = GENERATED.get();
            if (at - logged >= 30_000) {
                logged = at;
                BenchLog.log(String.format(
                        Locale.ROOT,
                        "scale %s: %,d of %,d generated (%s), %d checkpoints",
                        name,
                        n + 1,
                        readings,
                        n < 0 ? start : Instant.ofEpochMilli(fleet.eventMillis(n)),
                        completed.size()));
            }
            progress.put(at, n < 0 ? start.toEpochMilli() : fleet.eventMillis(n));
            peakHeap = Math.max(
                    peakHeap,
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
            peakRss = Math.max(peakRss, rssBytes());
            ScaleSample.collect(cluster, id, name, progress, completed);
            Thread.sleep(250);
        }
        ScaleSample.collect(cluster, id, name, progress, completed);
        cluster.await(id, 1);
        Part part = new Part(
                name,
                devices,
                readings,
                perDevice,
                days,
                clock.wallSeconds(),
                clock.cpuSeconds() - (InstantDynamoDb.cpuSeconds() - backendCpu),
                peakHeap,
                peakRss,
                List.copyOf(completed.values()));
        BenchLog.log(String.format(
                Locale.ROOT,
                "scale %s: %,d readings in %.1f s, %,.0f per job core-second, %d checkpoints, peak heap %,d MiB",
                name,
                readings,
                part.wall(),
                part.perCore(),
                completed.size(),
                peakHeap >> 20));
        return part;
    }

    /**
     * RocksDB's memory is the task manager's managed memory (as on MSF); the MiniCluster's default
     * left its write buffers so small that every put flushed a memtable of one entry.
     */
    public static Configuration managedMemory() {
        Configuration cluster = new Configuration();
        cluster.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse(MANAGED_MEMORY));
        return cluster;
    }

    /** The full job's input: the fleet's JSON records, generated and parsed in the source. */
    private static InputSource input(PeriodTablesConfig config, FleetGenerator fleet, long readings) {
        return new InputSource(
                new DataGeneratorSource<>(
                        new ParsingGenerator(config, "generator", n -> {
                            GENERATED.accumulateAndGet(n, Math::max);
                            return fleet.map(n).getBytes(StandardCharsets.UTF_8);
                        }),
                        readings,
                        TypeInformation.of(SinkRecord.class)),
                "generator-source",
                "Fleet records",
                1,
                false);
    }

    /** This process's resident set (heap, RocksDB's native memory, everything), 0 off Linux. */
    private static long rssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException notLinux) {
            return 0;
        }
        return 0;
    }
}
