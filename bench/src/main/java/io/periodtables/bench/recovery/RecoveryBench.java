package io.periodtables.bench.recovery;

import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.BenchConfigs;
import io.periodtables.bench.BenchLog;
import io.periodtables.bench.BenchMetrics;
import io.periodtables.bench.Contenders;
import io.periodtables.bench.MachineFacts;
import io.periodtables.bench.Stats;
import io.periodtables.bench.Tables;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.emulators.Dynalite;
import io.periodtables.job.PeriodTablesTopology;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Benchmark 6: recovery. The full job writes to dynalite (a node process) from a throttled
 * generator, is stopped with a savepoint, and is submitted again from it; measured are the
 * stop-with-savepoint time and, from the resubmission, the time to RUNNING and to the first
 * successful write ({@code recordsWritten} > 0 on the new job).
 */
public final class RecoveryBench {

    static final int RATE = 2000;

    private RecoveryBench() {}

    private record Recovery(int run, double stopSeconds, double runningSeconds, double firstWriteSeconds) {}

    public static String run(int runs, Path benchDir) throws Exception {
        String load = MachineFacts.loadAverage();
        Path savepoints = benchDir.resolve("target").resolve("savepoints").toAbsolutePath();
        List<Recovery> recoveries = new ArrayList<>();
        try (Dynalite dynamoDb = Tables.dynamoDb();
                DynamoDbClient admin = dynamoDb.syncClient();
                BenchCluster cluster = new BenchCluster()) {
            for (int run = 0; run <= runs; run++) {
                String prefix = "rec" + run;
                var keys = BenchConfigs.fleet(
                        prefix,
                        dynamoDb.endpoint(),
                        100_000_000L,
                        100,
                        Instant.now().minus(Duration.ofMinutes(30)),
                        Duration.ofHours(1));
                keys.put("generator.rate", Integer.toString(RATE));
                keys.put("generator.speedup", "1");
                PeriodTablesConfig config = BenchConfigs.load(keys);
                BenchMetrics.reset();
                JobID first = cluster.submit(graph(config));
                while (BenchMetrics.sum(UserMetrics.RECORDS_WRITTEN) < 10L * RATE) {
                    Thread.sleep(100);
                }
                long stopStart = System.nanoTime();
                String savepoint = cluster.miniCluster()
                        .stopWithSavepoint(first, savepoints.toUri().toString(), false, SavepointFormatType.CANONICAL)
                        .get(2, TimeUnit.MINUTES);
                double stop = (System.nanoTime() - stopStart) / 1e9;
                cluster.miniCluster().requestJobResult(first).get(2, TimeUnit.MINUTES);

                BenchMetrics.reset();
                JobGraph restored = graph(config);
                restored.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint, false));
                long t0 = System.nanoTime();
                JobID second = cluster.submit(restored);
                double running = Double.NaN;
                while (BenchMetrics.sum(UserMetrics.RECORDS_WRITTEN) == 0) {
                    if (Double.isNaN(running)
                            && cluster.miniCluster().getJobStatus(second).get() == JobStatus.RUNNING) {
                        running = (System.nanoTime() - t0) / 1e9;
                    }
                    Thread.sleep(2);
                }
                double firstWrite = (System.nanoTime() - t0) / 1e9;
                cluster.miniCluster().cancelJob(second).get();
                cluster.miniCluster().requestJobResult(second).get(2, TimeUnit.MINUTES);
                Tables.deleteWithPrefix(admin, prefix);
                Recovery r = new Recovery(run, stop, running, firstWrite);
                BenchLog.log((run == 0 ? "warm-up: " : "") + r);
                if (run > 0) {
                    recoveries.add(r);
                }
            }
        }
        StringBuilder md = new StringBuilder("## 6. Recovery from a savepoint\n\n");
        md.append(String.format(
                Locale.ROOT,
                "Full job into dynalite (a node process), generator throttled to %,d readings/s,"
                        + " stopped with a savepoint after %,d readings were written, then submitted again from the"
                        + " savepoint to"
                        + " the same MiniCluster; %d runs after a warm-up; load average at start %s. Times from the"
                        + " resubmission.%n%n",
                RATE,
                10 * RATE,
                runs,
                load));
        md.append("| measure | median (min–max) |\n|---|---|\n");
        md.append("| stop with savepoint | ")
                .append(Stats.of(recoveries.stream().map(Recovery::stopSeconds).toList())
                        .format("%.2f s"))
                .append(" |\n");
        md.append("| resubmission → job RUNNING | ")
                .append(Stats.of(recoveries.stream()
                                .map(Recovery::runningSeconds)
                                .toList())
                        .format("%.2f s"))
                .append(" |\n");
        md.append("| resubmission → first write acknowledged by DynamoDB | **")
                .append(Stats.of(recoveries.stream()
                                .map(Recovery::firstWriteSeconds)
                                .toList())
                        .format("%.2f s"))
                .append("** |\n");
        return md.toString();
    }

    private static JobGraph graph(PeriodTablesConfig config) {
        return BenchCluster.graphOf(
                Contenders.CHECKPOINT_MILLIS, env -> PeriodTablesTopology.build(env, config, Clock.systemUTC()));
    }
}
