package io.periodtables.bench.memory;

import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.BenchConfigs;
import io.periodtables.bench.BenchMetrics;
import io.periodtables.bench.CpuClock;
import io.periodtables.bench.InstantDynamoDb;
import io.periodtables.bench.MachineFacts;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.job.PeriodTablesTopology;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;

/**
 * Benchmark 5: memory with a large fleet. The full job writes {@code n} readings of
 * {@value #DEVICES} devices (one reading per device per event-minute, so 1,000,000 readings are
 * 10 event-minutes) to the instant backend as fast as it can. Mid-run it measures the heap after
 * a full GC and takes a checkpoint, whose per-operator state sizes (hashmap state backend,
 * checkpoints on the file system) give the window operator's state per device.
 */
public final class MemoryBench {

    static final int DEVICES = 100_000;

    private MemoryBench() {}

    public static String run(int n, Path benchDir) throws Exception {
        String load = MachineFacts.loadAverage();
        Instant start = BenchConfigs.fleetStart(3);
        Duration span = Duration.ofMillis(60_000L * n / DEVICES);
        try (InstantDynamoDb backend = InstantDynamoDb.start(1);
                BenchCluster cluster = new BenchCluster()) {
            PeriodTablesConfig config =
                    BenchConfigs.load(BenchConfigs.fleet("mem", backend.endpoint(), n, DEVICES, start, span));
            Configuration jobConfig = new Configuration();
            jobConfig.set(
                    CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                    benchDir.resolve("target")
                            .resolve("memory-checkpoints")
                            .toAbsolutePath()
                            .toUri()
                            .toString());
            long idleHeap = heapAfterGc();
            BenchMetrics.reset();
            CpuClock clock = new CpuClock();
            JobID job = cluster.submit(BenchCluster.graphOf(
                    jobConfig, 60_000, env -> PeriodTablesTopology.build(env, config, Clock.systemUTC())));
            waitForWritten(n * 6L / 10);
            long steadyHeap = heapAfterGc();
            long writtenAtGc = BenchMetrics.sum(UserMetrics.RECORDS_WRITTEN);
            long checkpointId = cluster.miniCluster()
                    .triggerCheckpoint(job, org.apache.flink.core.execution.CheckpointType.FULL)
                    .get();
            AccessExecutionGraph graph =
                    cluster.miniCluster().getExecutionGraph(job).get();
            String states = stateSizes(graph, checkpointId);
            cluster.await(job, 20);
            double wall = clock.wallSeconds();
            StringBuilder md = new StringBuilder("## 5. Memory\n\n");
            md.append(String.format(
                    Locale.ROOT,
                    "Full job on the instant backend, %,d devices, %,d readings (one per device"
                            + " per event-minute: %d event-minutes), unthrottled, parallelism 2, hashmap state"
                            + " backend; heap"
                            + " limit of the benchmark JVM %,d MB; load average at start %s. The run took %.0f s"
                            + " (%,.0f readings/s).%n%n",
                    DEVICES,
                    n,
                    span.toMinutes(),
                    Runtime.getRuntime().maxMemory() >> 20,
                    load,
                    wall,
                    n / wall));
            md.append("| measure | value |\n|---|---|\n");
            md.append(String.format(
                    Locale.ROOT,
                    "| heap used after full GC, idle MiniCluster before the job | %,.1f MB |%n",
                    mb(idleHeap)));
            md.append(String.format(
                    Locale.ROOT,
                    "| heap used after full GC, job running (%,d readings written, %d %%) | %,.1f MB |%n",
                    writtenAtGc,
                    100 * writtenAtGc / n,
                    mb(steadyHeap)));
            md.append(String.format(
                    Locale.ROOT,
                    "| heap held by the running job | %,.1f MB = %,.0f bytes per device |%n",
                    mb(steadyHeap - idleHeap),
                    (double) (steadyHeap - idleHeap) / DEVICES));
            md.append(states);
            return md.toString();
        }
    }

    private static String stateSizes(AccessExecutionGraph graph, long checkpointId) throws InterruptedException {
        AbstractCheckpointStats stats = null;
        for (int i = 0; i < 600 && stats == null; i++) {
            for (AbstractCheckpointStats c :
                    graph.getCheckpointStatsSnapshot().getHistory().getCheckpoints()) {
                if (c.getCheckpointId() == checkpointId && c.getStatus().isCompleted()) {
                    stats = c;
                }
            }
            if (stats == null) {
                Thread.sleep(100);
            }
        }
        if (stats == null) {
            return "| checkpoint " + checkpointId + " | did not complete in time |\n";
        }
        StringBuilder md = new StringBuilder(String.format(
                Locale.ROOT,
                "| checkpoint %d (taken mid-run), all operators |" + " %,.1f KB |%n",
                checkpointId,
                stats.getStateSize() / 1024.0));
        for (Map.Entry<String, AccessExecutionJobVertex> v : vertices(graph).entrySet()) {
            var task = stats.getTaskStateStats(v.getValue().getJobVertexId());
            if (task != null && task.getStateSize() > 0) {
                String perDevice = v.getKey().contains("Period windows")
                        ? String.format(
                                Locale.ROOT, " = **%.1f bytes per device**", (double) task.getStateSize() / DEVICES)
                        : "";
                md.append(String.format(
                        Locale.ROOT,
                        "| … of which %s | %,.1f KB%s |%n",
                        v.getKey(),
                        task.getStateSize() / 1024.0,
                        perDevice));
            }
        }
        return md.toString();
    }

    private static Map<String, AccessExecutionJobVertex> vertices(AccessExecutionGraph graph) {
        Map<String, AccessExecutionJobVertex> byName = new java.util.LinkedHashMap<>();
        for (AccessExecutionJobVertex v : graph.getVerticesTopologically()) {
            byName.put(v.getName(), v);
        }
        return byName;
    }

    private static void waitForWritten(long target) throws InterruptedException {
        while (BenchMetrics.sum(UserMetrics.RECORDS_WRITTEN) < target) {
            Thread.sleep(200);
        }
    }

    static long heapAfterGc() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static double mb(long bytes) {
        return bytes / 1024.0 / 1024.0;
    }
}
