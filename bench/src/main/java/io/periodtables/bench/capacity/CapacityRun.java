package io.periodtables.bench.capacity;

import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.BenchLog;
import io.periodtables.bench.BenchMetrics;
import io.periodtables.bench.CpuClock;
import io.periodtables.bench.InstantDynamoDb;
import io.periodtables.bench.PrebuiltReadings;
import io.periodtables.bench.RawBatchLoop;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import java.util.Locale;
import org.apache.flink.runtime.jobgraph.JobGraph;

/**
 * One measured run of a {@link CapacityBench} contender: readings, wall time, the process's CPU and
 * of it the instant backend's and the JIT compiler's, so that the job's own CPU per reading is
 * what is left.
 */
record CapacityRun(String what, int round, long readings, double wall, double cpu, double backendCpu, double jitCpu) {
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

    static CapacityRun measure(BenchCluster cluster, String what, int round, long n, JobGraph graph) throws Exception {
        BenchMetrics.reset();
        System.gc();
        double backend = InstantDynamoDb.cpuSeconds();
        CpuClock clock = new CpuClock();
        cluster.run(graph);
        CapacityRun run = new CapacityRun(
                what,
                round,
                n,
                clock.wallSeconds(),
                clock.cpuSeconds(),
                InstantDynamoDb.cpuSeconds() - backend,
                clock.jitSeconds());
        // the rollups' bucket items are written by a period sink of their own and count too
        long written = BenchMetrics.sum(UserMetrics.RECORDS_WRITTEN);
        if (what.equals(CapacityBench.ROLLUPS) ? written < n : written != n) {
            throw new IllegalStateException(what + " wrote " + written + " readings, expected " + n);
        }
        if (what.equals(CapacityBench.ROLLUPS)) {
            long buckets = BenchMetrics.sum(UserMetrics.ROLLUP_BUCKETS_WRITTEN);
            BenchLog.log(String.format(
                    Locale.ROOT,
                    "%s run %d: %,d bucket items written (%.2f per reading), %,d of them not replacing a larger one",
                    what,
                    round,
                    buckets,
                    (double) buckets / n,
                    BenchMetrics.sum(UserMetrics.ITEMS_NOT_REPLACED)));
        }
        if (!what.equals("sink-only")) {
            long puts = BenchMetrics.sum(UserMetrics.LATEST_PUTS) + BenchMetrics.sum(UserMetrics.LATEST_NOT_NEWER);
            BenchLog.log(String.format(
                    Locale.ROOT,
                    "%s run %d: %,d latest puts (%.3f per reading)",
                    what,
                    round,
                    puts,
                    (double) puts / n));
        }
        return run;
    }

    /** The SDK's own ceiling: {@link RawBatchLoop} with 16 requests in flight, one thread, no Flink. */
    static CapacityRun measureRaw(int round, long n, PeriodTablesConfig config) throws Exception {
        System.gc();
        double backend = InstantDynamoDb.cpuSeconds();
        CpuClock clock = new CpuClock();
        RawBatchLoop.write(config, "raw_table", PrebuiltReadings.all(), 16);
        return new CapacityRun(
                "raw-sdk",
                round,
                n,
                clock.wallSeconds(),
                clock.cpuSeconds(),
                InstantDynamoDb.cpuSeconds() - backend,
                clock.jitSeconds());
    }
}
