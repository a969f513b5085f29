package io.periodtables.bench.e2e;

import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.BenchLog;
import io.periodtables.bench.Contenders;
import io.periodtables.bench.Measurement;
import io.periodtables.bench.PrebuiltReadings;
import io.periodtables.bench.Tables;
import io.periodtables.emulators.Dynalite;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Where the seconds of an end-to-end run go (issue 58): the stock sink and the full job, one after
 * the other per round, each with its {@link WriteProgress.Phases}, its checkpoints and, per
 * operator chain, when its subtasks started running and finished, measured from the job's
 * submission. Prints only, writes nothing to RESULTS.md: {@code BENCH_MAIN=io.periodtables.bench.E2ePhases
 * ./bench/run 100000 3} (readings per run, rounds).
 */
final class E2ePhases {
    private E2ePhases() {}

    public static void main(String[] args) throws Exception {
        run(args.length > 0 ? Integer.parseInt(args[0]) : 100_000, args.length > 1 ? Integer.parseInt(args[1]) : 3);
        System.exit(0);
    }

    static void run(int n, int rounds) throws Exception {
        try (Dynalite dynamoDb = Tables.dynamoDb();
                DynamoDbClient admin = dynamoDb.syncClient();
                BenchCluster cluster = new BenchCluster()) {
            Contenders contenders = new Contenders(cluster, dynamoDb, admin, n);
            PrebuiltReadings.set(contenders.fleet(), n);
            Contenders warmUp = new Contenders(cluster, dynamoDb, admin, Math.min(n, 50_000));
            for (int i = 0; i < 2; i++) {
                BenchLog.log("warm-up: " + warmUp.stockSink(0));
                BenchLog.log("warm-up: " + warmUp.fullJob(0));
            }
            for (int round = 1; round <= rounds; round++) {
                phases(cluster, "stock-sink", () -> contenders.stockSink(0));
                phases(cluster, "full-job", () -> contenders.fullJob(0));
            }
        }
    }

    private interface Run {
        Measurement run() throws Exception;
    }

    private static void phases(BenchCluster cluster, String what, Run body) throws Exception {
        Measurement m = body.run();
        BenchLog.log(what + ": " + m);
        JobID job = cluster.lastJob();
        AccessExecutionGraph graph =
                cluster.miniCluster().getArchivedExecutionGraph(job).get();
        long submitted = graph.getStatusTimestamp(org.apache.flink.api.common.JobStatus.INITIALIZING);
        BenchLog.log(String.format(
                Locale.ROOT,
                "  job: created %.2f s, running %.2f s, finished %.2f s after submission",
                (graph.getStatusTimestamp(org.apache.flink.api.common.JobStatus.CREATED) - submitted) / 1e3,
                (graph.getStatusTimestamp(org.apache.flink.api.common.JobStatus.RUNNING) - submitted) / 1e3,
                (graph.getStatusTimestamp(org.apache.flink.api.common.JobStatus.FINISHED) - submitted) / 1e3));
        org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot checkpoints = graph.getCheckpointStatsSnapshot();
        if (checkpoints != null) {
            List<String> each = new ArrayList<>();
            for (org.apache.flink.runtime.checkpoint.AbstractCheckpointStats c :
                    checkpoints.getHistory().getCheckpoints()) {
                each.add(String.format(
                        Locale.ROOT,
                        "#%d at %.2f s %s in %.2f s",
                        c.getCheckpointId(),
                        (c.getTriggerTimestamp() - submitted) / 1e3,
                        c.getStatus(),
                        c.getEndToEndDuration() / 1e3));
            }
            java.util.Collections.reverse(each);
            BenchLog.log("  checkpoints: " + String.join("; ", each));
        }
        for (AccessExecutionJobVertex vertex : graph.getVerticesTopologically()) {
            long running = Long.MAX_VALUE;
            long firstFinished = Long.MAX_VALUE;
            long lastFinished = 0;
            for (AccessExecutionVertex task : vertex.getTaskVertices()) {
                running = Math.min(running, task.getStateTimestamp(ExecutionState.RUNNING));
                firstFinished = Math.min(firstFinished, task.getStateTimestamp(ExecutionState.FINISHED));
                lastFinished = Math.max(lastFinished, task.getStateTimestamp(ExecutionState.FINISHED));
            }
            BenchLog.log(String.format(
                    Locale.ROOT,
                    "  %-60.60s running %.2f s, finished %.2f–%.2f s",
                    vertex.getName(),
                    (running - submitted) / 1e3,
                    (firstFinished - submitted) / 1e3,
                    (lastFinished - submitted) / 1e3));
        }
    }
}
