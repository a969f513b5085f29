package io.periodtables.bench.capacity;

import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.BenchConfigs;
import io.periodtables.bench.BenchLog;
import io.periodtables.bench.Contenders;
import io.periodtables.bench.FleetReadings;
import io.periodtables.bench.InstantDynamoDb;
import io.periodtables.bench.MachineFacts;
import io.periodtables.bench.PrebuiltReadings;
import io.periodtables.bench.RawBatchLoop;
import io.periodtables.bench.WarmUp;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.job.PeriodTablesTopology;
import io.periodtables.model.SinkRecord;
import io.periodtables.sink.PeriodTableSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.Recording;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.jobgraph.JobGraph;

/**
 * Benchmark 2: the pipeline's own capacity, with DynamoDB replaced by {@link InstantDynamoDb}.
 * The full job (pre-built JSON records → parse → watermarks → period windows → period sink, latest
 * writer, rotation), the same with rollups ({@code rollups.every} = {@link Contenders#ROLLUPS_EVERY}),
 * the sink alone (pre-built readings) and, as the ceiling, the SDK alone ({@link RawBatchLoop}, one
 * thread, no Flink) write {@code n} readings; the result is readings per
 * second and readings per CPU-second of the job (the responder's threads subtracted). One extra
 * run of the full job is recorded with JFR and summarised. {@code contenders} picks some of
 * {@link #CONTENDERS} (the SDK version sweep, {@code bench/sdk-sweep}, runs only the SDK-bound ones).
 */
public final class CapacityBench {

    /** The fleet's devices: {@code BENCH_CAPACITY_DEVICES} (environment), by default 1,000. */
    static final int DEVICES = Integer.parseInt(System.getenv().getOrDefault("BENCH_CAPACITY_DEVICES", "1000"));
    /**
     * The event time the readings span: {@code BENCH_CAPACITY_SPAN} (environment), by default 150
     * minutes (1.3 readings per device and minute at N = 200,000).
     */
    static final Duration SPAN = Duration.parse(System.getenv().getOrDefault("BENCH_CAPACITY_SPAN", "PT150M"));

    static final String FULL_JOB = "full-job";
    static final String ROLLUPS = "full-job-rollups";
    public static final List<String> CONTENDERS = List.of(FULL_JOB, ROLLUPS, "sink-only", "raw-sdk");

    private CapacityBench() {}

    public static String run(int n, int rounds, Path benchDir, Set<String> contenders) throws Exception {
        if (!CONTENDERS.containsAll(contenders)) {
            throw new IllegalArgumentException(
                    "unknown contender in --contenders " + contenders + "; expected some of " + CONTENDERS);
        }
        List<CapacityRun> runs = new ArrayList<>();
        int warmUpRounds = 0;
        String load = MachineFacts.loadAverage();
        List<Path> profiles = new ArrayList<>();
        Instant start = BenchConfigs.fleetStart(4);
        try (InstantDynamoDb backend = InstantDynamoDb.start(1);
                BenchCluster cluster = new BenchCluster()) {
            PeriodTablesConfig seed = config(backend, "capseed", n, start);
            PrebuiltReadings.set(new FleetReadings(seed, start), n);
            for (int warmUp = 1; ; warmUp++) {
                List<CapacityRun> measured = round(cluster, backend, contenders, 0, "w" + warmUp, n, start);
                for (CapacityRun r : measured) {
                    BenchLog.log("warm-up " + warmUp + ": " + r);
                }
                warmUpRounds = warmUp;
                if (WarmUp.over(
                        warmUp,
                        measured.stream()
                                .map(r -> new WarmUp.Cpu(r.cpu() - r.backendCpu(), r.jitCpu()))
                                .toList())) {
                    break;
                }
            }
            for (int round = 1; round <= rounds; round++) {
                for (CapacityRun r : round(cluster, backend, contenders, round, "r" + round, n, start)) {
                    BenchLog.log(r.toString());
                    runs.add(r);
                }
            }
            for (String what : List.of(FULL_JOB, ROLLUPS)) {
                if (contenders.contains(what)) {
                    profiles.add(profile(
                            cluster, what, rounds + 1, n, fullJob(backend, "capjfr", n, start, what), benchDir));
                }
            }
        }
        return CapacityReport.markdown(n, rounds, warmUpRounds, runs, load, profiles);
    }

    /** One more run of {@code what}, recorded with JFR: the recording's path. */
    private static Path profile(BenchCluster cluster, String what, int round, int n, JobGraph graph, Path benchDir)
            throws Exception {
        Path jfr = benchDir.resolve("target").resolve("capacity-" + what + ".jfr");
        Files.createDirectories(jfr.getParent());
        // default settings (low overhead) with execution samples every 10 ms
        try (Recording recording = new Recording(jdk.jfr.Configuration.getConfiguration("default"))) {
            recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
            recording.start();
            CapacityRun profiled = CapacityRun.measure(cluster, what, round, n, graph);
            recording.stop();
            recording.dump(jfr);
            BenchLog.log("profiled: " + profiled);
        }
        return jfr;
    }

    /** One run of each contender, in the order of {@link #CONTENDERS}. */
    private static List<CapacityRun> round(
            BenchCluster cluster,
            InstantDynamoDb backend,
            Set<String> contenders,
            int round,
            String tag,
            int n,
            Instant start)
            throws Exception {
        List<CapacityRun> measured = new ArrayList<>();
        for (String what : List.of(FULL_JOB, ROLLUPS)) {
            if (contenders.contains(what)) {
                String prefix = (what.equals(ROLLUPS) ? "capr" : "cap") + tag;
                measured.add(CapacityRun.measure(cluster, what, round, n, fullJob(backend, prefix, n, start, what)));
            }
        }
        if (contenders.contains("sink-only")) {
            measured.add(
                    CapacityRun.measure(cluster, "sink-only", round, n, sinkOnly(backend, "caps" + tag, n, start)));
        }
        if (contenders.contains("raw-sdk")) {
            measured.add(CapacityRun.measureRaw(round, n, config(backend, "capw" + tag, n, start)));
        }
        return measured;
    }

    static PeriodTablesConfig config(InstantDynamoDb backend, String prefix, int n, Instant start) {
        return BenchConfigs.load(BenchConfigs.fleet(prefix, backend.endpoint(), n, DEVICES, start, SPAN));
    }

    /** The full job (latest on, as by default); {@link #ROLLUPS} adds {@code rollups.every}. */
    private static JobGraph fullJob(InstantDynamoDb backend, String prefix, int n, Instant start, String what) {
        Map<String, String> keys = BenchConfigs.fleet(prefix, backend.endpoint(), n, DEVICES, start, SPAN);
        keys.put("latest.enabled", "true");
        if (what.equals(ROLLUPS)) {
            keys.put("rollups.every", Contenders.ROLLUPS_EVERY);
        }
        PeriodTablesConfig config = BenchConfigs.load(keys);
        // the rollups' state outgrows the JobManager's 5 MB checkpoint limit: checkpoints go to files
        Configuration job = new Configuration();
        job.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        job.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                Path.of(System.getProperty("java.io.tmpdir"), "period-tables-capacity-checkpoints")
                        .toUri()
                        .toString());
        return BenchCluster.graphOf(
                job,
                Contenders.CHECKPOINT_MILLIS,
                env -> PeriodTablesTopology.build(env, config, PrebuiltReadings.jsonRecords(config, n)));
    }

    private static JobGraph sinkOnly(InstantDynamoDb backend, String prefix, int n, Instant start) {
        PeriodTablesConfig config = config(backend, prefix, n, start);
        return BenchCluster.graphOf(
                Contenders.CHECKPOINT_MILLIS,
                env -> env.fromSource(
                                new DataGeneratorSource<>(
                                        new PrebuiltReadings.AsSinkRecords(), n, TypeInformation.of(SinkRecord.class)),
                                WatermarkStrategy.noWatermarks(),
                                "Readings")
                        .sinkTo(PeriodTableSink.builder()
                                .config(config)
                                .missingTableHandler(cfg -> (table, arrival, eventTime) ->
                                        java.util.concurrent.CompletableFuture.failedFuture(new IllegalStateException(
                                                "the instant backend creates no tables for the sink")))
                                .build()));
    }
}
