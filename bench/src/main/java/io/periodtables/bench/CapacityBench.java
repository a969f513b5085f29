package io.periodtables.bench;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.job.PeriodTablesTopology;
import io.periodtables.model.SinkRecord;
import io.periodtables.sink.PeriodTableSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
final class CapacityBench {

    static final int DEVICES = 1000;
    static final String FULL_JOB = "full-job";
    static final String ROLLUPS = "full-job-rollups";
    static final List<String> CONTENDERS = List.of(FULL_JOB, ROLLUPS, "sink-only", "raw-sdk");

    private CapacityBench() {}

    private record Run(
            String what, int round, long readings, double wall, double cpu, double backendCpu, double jitCpu) {
        double perSecond() {
            return readings / wall;
        }

        /** Readings per CPU-second of the job: process CPU without the instant backend's threads. */
        double perCore() {
            return readings / (cpu - backendCpu);
        }

        /** The same without the JIT compiler's CPU: what a job that runs for hours pays per reading. */
        double perCoreCompiled() {
            return readings / (cpu - backendCpu - jitCpu);
        }

        @Override
        public String toString() {
            return String.format(
                    Locale.ROOT,
                    "%-16s run %d: %,d readings in %.2f s = %,.0f/s; process CPU %.2f s, of it"
                            + " instant backend %.2f s, JIT %.2f s; %,.0f readings per job CPU-second, %,.0f without JIT",
                    what,
                    round,
                    readings,
                    wall,
                    perSecond(),
                    cpu,
                    backendCpu,
                    jitCpu,
                    perCore(),
                    perCoreCompiled());
        }
    }

    static String run(int n, int rounds, Path benchDir, Set<String> contenders) throws Exception {
        if (!CONTENDERS.containsAll(contenders)) {
            throw new IllegalArgumentException(
                    "unknown contender in --contenders " + contenders + "; expected some of " + CONTENDERS);
        }
        List<Run> runs = new ArrayList<>();
        int warmUpRounds = 0;
        String load = MachineFacts.loadAverage();
        List<Path> profiles = new ArrayList<>();
        Instant start = BenchConfigs.fleetStart(4);
        try (InstantDynamoDb backend = InstantDynamoDb.start(1);
                BenchCluster cluster = new BenchCluster()) {
            PeriodTablesConfig seed = config(backend, "capseed", n, start);
            PrebuiltReadings.set(new FleetReadings(seed, start), n);
            for (int warmUp = 1; ; warmUp++) {
                List<Run> measured = round(cluster, backend, contenders, 0, "w" + warmUp, n, start);
                for (Run r : measured) {
                    E2eBench.log("warm-up " + warmUp + ": " + r);
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
                for (Run r : round(cluster, backend, contenders, round, "r" + round, n, start)) {
                    E2eBench.log(r.toString());
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
        return section(n, rounds, warmUpRounds, runs, load, profiles);
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
            Run profiled = measure(cluster, what, round, n, graph);
            recording.stop();
            recording.dump(jfr);
            E2eBench.log("profiled: " + profiled);
        }
        return jfr;
    }

    /** One run of each contender, in the order of {@link #CONTENDERS}. */
    private static List<Run> round(
            BenchCluster cluster,
            InstantDynamoDb backend,
            Set<String> contenders,
            int round,
            String tag,
            int n,
            Instant start)
            throws Exception {
        List<Run> measured = new ArrayList<>();
        for (String what : List.of(FULL_JOB, ROLLUPS)) {
            if (contenders.contains(what)) {
                String prefix = (what.equals(ROLLUPS) ? "capr" : "cap") + tag;
                measured.add(measure(cluster, what, round, n, fullJob(backend, prefix, n, start, what)));
            }
        }
        if (contenders.contains("sink-only")) {
            measured.add(measure(cluster, "sink-only", round, n, sinkOnly(backend, "caps" + tag, n, start)));
        }
        if (contenders.contains("raw-sdk")) {
            measured.add(measureRaw(round, n, config(backend, "capw" + tag, n, start)));
        }
        return measured;
    }

    static PeriodTablesConfig config(InstantDynamoDb backend, String prefix, int n, Instant start) {
        return BenchConfigs.load(
                BenchConfigs.fleet(prefix, backend.endpoint(), n, DEVICES, start, Duration.ofMinutes(150)));
    }

    /** The full job (latest on, as by default); {@link #ROLLUPS} adds {@code rollups.every}. */
    private static JobGraph fullJob(InstantDynamoDb backend, String prefix, int n, Instant start, String what) {
        Map<String, String> keys =
                BenchConfigs.fleet(prefix, backend.endpoint(), n, DEVICES, start, Duration.ofMinutes(150));
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

    private static Run measure(BenchCluster cluster, String what, int round, long n, JobGraph graph) throws Exception {
        BenchMetrics.reset();
        System.gc();
        double backend = InstantDynamoDb.cpuSeconds();
        CpuClock clock = new CpuClock();
        cluster.run(graph);
        Run run = new Run(
                what,
                round,
                n,
                clock.wallSeconds(),
                clock.cpuSeconds(),
                InstantDynamoDb.cpuSeconds() - backend,
                clock.jitSeconds());
        // the rollups' bucket items are written by a period sink of their own and count too
        long written = BenchMetrics.sum(UserMetrics.RECORDS_WRITTEN);
        if (what.equals(ROLLUPS) ? written < n : written != n) {
            throw new IllegalStateException(what + " wrote " + written + " readings, expected " + n);
        }
        return run;
    }

    /** The SDK's own ceiling: {@link RawBatchLoop} with 16 requests in flight, one thread, no Flink. */
    private static Run measureRaw(int round, long n, PeriodTablesConfig config) throws Exception {
        System.gc();
        double backend = InstantDynamoDb.cpuSeconds();
        CpuClock clock = new CpuClock();
        RawBatchLoop.write(config, "raw_table", PrebuiltReadings.all(), 16);
        return new Run(
                "raw-sdk",
                round,
                n,
                clock.wallSeconds(),
                clock.cpuSeconds(),
                InstantDynamoDb.cpuSeconds() - backend,
                clock.jitSeconds());
    }

    private static String section(int n, int rounds, int warmUpRounds, List<Run> runs, String load, List<Path> profiles)
            throws Exception {
        StringBuilder md = new StringBuilder("## 2. Pipeline capacity with an instant backend\n\n");
        md.append(String.format(
                Locale.ROOT,
                "N = %,d readings per run, %,d devices, 3 hourly periods, 4 shards,"
                        + " parallelism 2, checkpoints every 10 s, heap state backend; the full job with"
                        + " `latest.enabled=true`, full-job-rollups the same with `rollups.every=%s`; DynamoDB"
                        + " replaced by an in-process Netty responder on 127.0.0.1 (BatchWriteItem →"
                        + " `{\"UnprocessedItems\":{}}`, every PutItem but the writers table's → `{}`, the writers"
                        + " table's conditional PutItem and Query kept as DynamoDB would); %d rounds after %d warm-up rounds (%s); load average"
                        + " at start %s. *Per core* = readings ÷ CPU-seconds of the job's JVM, the responder's"
                        + " event-loop thread excluded; *compiled* also without the JIT compiler threads' CPU (a warm-up cost"
                        + " that a job running for hours pays once).%n%n",
                n,
                DEVICES,
                Contenders.ROLLUPS_EVERY,
                rounds,
                warmUpRounds,
                WarmUp.rule(),
                load));
        md.append(
                "| pipeline | readings/s median (min–max) | readings per core-second median (min–max) | same, compiled |"
                        + " target |\n|---|---|---|---|---|\n");
        for (String what : CONTENDERS) {
            List<Run> mine = runs.stream().filter(r -> r.what().equals(what)).toList();
            if (mine.isEmpty()) {
                continue;
            }
            md.append("| ")
                    .append(what)
                    .append(" | ")
                    .append(Stats.of(mine.stream().map(Run::perSecond).toList()).format("%,.0f"))
                    .append(" | ")
                    .append(Stats.of(mine.stream().map(Run::perCore).toList()).format("%,.0f"))
                    .append(" | ")
                    .append(Stats.of(mine.stream().map(Run::perCoreCompiled).toList())
                            .format("%,.0f"))
                    .append(
                            what.equals(FULL_JOB)
                                    ? " | ≥ 60,000 (issues 18, 39) |\n"
                                    : what.equals(ROLLUPS)
                                            ? " | ≥ 0.85× full-job (issue 39) |\n"
                                            : what.equals("raw-sdk") ? " | (ceiling: SDK alone) |\n" : " | |\n");
        }
        List<Double> ratios = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            int r = round;
            runs.stream()
                    .filter(x -> x.round() == r && x.what().equals(ROLLUPS))
                    .findFirst()
                    .ifPresent(rollups -> runs.stream()
                            .filter(x -> x.round() == r && x.what().equals(FULL_JOB))
                            .findFirst()
                            .ifPresent(job -> ratios.add(rollups.perCore() / job.perCore())));
        }
        if (!ratios.isEmpty()) {
            md.append(String.format(
                    Locale.ROOT,
                    "%nfull-job-rollups / full-job readings per core-second, per round (same round, back to back):"
                            + " %s; median **%s** (target ≥ 0.85).%n",
                    ratios.stream()
                            .map(x -> String.format(Locale.ROOT, "%.3f", x))
                            .toList(),
                    Stats.of(ratios).format("%.3f")));
        }
        md.append("\n```\n");
        runs.forEach(r -> md.append(r).append('\n'));
        md.append("```\n");
        for (Path jfr : profiles) {
            String what = jfr.getFileName().toString().replace("capacity-", "").replace(".jfr", "");
            md.append("\n### CPU profile of one more ")
                    .append(what)
                    .append(" run\n\n")
                    .append(JfrSummary.markdown(jfr, 30));
        }
        return md.toString();
    }
}
