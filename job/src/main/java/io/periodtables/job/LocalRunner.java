package io.periodtables.job;

import io.periodtables.conf.ConfigException;
import io.periodtables.conf.ConfigKeys;
import io.periodtables.conf.ConfigLoader;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.emulators.DynamoDbLocal;
import io.periodtables.emulators.LoopbackFlink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The local run: the real topology on a MiniCluster (Web UI on http://127.0.0.1:8081), with an
 * embedded DynamoDB Local unless an endpoint is configured, and the synthetic fleet as source
 * by default. Prints a status line about once a second and, at the end, the tables with their
 * item counts and capacity.
 *
 * <p>Arguments: the job's {@code --key value} configuration, plus {@code --duration PT30S} for
 * a bounded run (default: until the source ends or Ctrl-C) and {@code --from-savepoint PATH}
 * to resume a run. A bounded run ends with a savepoint under {@code .flink-local/savepoints};
 * the embedded DynamoDB Local keeps its data in {@code .flink-local/dynamodb} between a run and
 * its resumption (a run without {@code --from-savepoint} starts with empty tables).
 */
public final class LocalRunner {

    /** Where the local run keeps its savepoints and the embedded DynamoDB Local's data. */
    static final Path WORK_DIR = Path.of(".flink-local");

    private LocalRunner() {}

    public static void main(String[] args) throws Exception {
        Duration duration = null;
        String fromSavepoint = null;
        List<String> jobArgs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--from-savepoint") && i + 1 < args.length) {
                fromSavepoint = args[++i];
            } else if (args[i].equals("--duration") && i + 1 < args.length) {
                try {
                    duration = Duration.parse(args[++i]);
                } catch (RuntimeException e) {
                    fail("Invalid argument: --duration = '" + args[i] + "': expected an ISO-8601 duration such as PT30S");
                }
            } else {
                jobArgs.add(args[i]);
            }
        }
        PeriodTablesConfig config = null;
        try {
            config = ConfigLoader.load(jobArgs.toArray(new String[0]), Map.of(), true);
        } catch (ConfigException e) {
            fail(e.getMessage());
        }
        DynamoDbLocal embedded = null;
        try {
            if (config.startsEmbeddedDynamoDb()) {
                Path data = WORK_DIR.resolve("dynamodb");
                if (fromSavepoint == null) {
                    deleteRecursively(data);
                }
                Files.createDirectories(data);
                embedded = DynamoDbLocal.start(data);
                config = config.with(ConfigKeys.DYNAMODB_ENDPOINT, embedded.endpoint().toString());
                System.out.println("Embedded DynamoDB Local at " + embedded.endpoint());
            }
            run(config, duration, fromSavepoint);
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
        // Flink and the SDK leave non-daemon threads behind; the run is over.
        System.exit(0);
    }

    private static void run(PeriodTablesConfig config, Duration duration, String fromSavepoint) throws Exception {
        Configuration flink = LoopbackFlink.configuration("8081-8099");
        flink.setString(MetricOptions.REPORTERS_LIST.key(), "status");
        flink.setString("metrics.reporter.status.factory.class", LocalStatusReporter.Factory.class.getName());
        int parallelism = config.get(ConfigKeys.PARALLELISM);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        env.setParallelism(parallelism);
        env.enableCheckpointing(config.get(ConfigKeys.CHECKPOINT_INTERVAL).toMillis());
        PeriodTablesTopology.build(env, config, Clock.systemUTC());
        JobGraph jobGraph = env.getStreamGraph().getJobGraph();
        if (fromSavepoint != null) {
            jobGraph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(fromSavepoint, false));
        }

        MiniClusterConfiguration clusterConfig = new MiniClusterConfiguration.Builder()
                .setConfiguration(flink)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(parallelism)
                .build();
        try (MiniCluster cluster = new MiniCluster(clusterConfig)) {
            cluster.start();
            System.out.println("Flink Web UI: " + cluster.getRestAddress().get());
            JobID job = cluster.submitJob(jobGraph).get().getJobID();
            StatusLine status = new StatusLine(config);
            Instant deadline = duration == null ? Instant.MAX : Instant.now().plus(duration);
            JobStatus state = cluster.getJobStatus(job).get();
            while (!state.isGloballyTerminalState() && Instant.now().isBefore(deadline)) {
                Thread.sleep(1000);
                state = cluster.getJobStatus(job).get();
                System.out.println(status.line());
            }
            String savepoint = null;
            if (!state.isGloballyTerminalState()) {
                savepoint = stop(cluster, job);
            }
            JobStatus end = cluster.getJobStatus(job).get();
            System.out.println("Job " + (state.isGloballyTerminalState() ? state : "stopped after " + duration) + ".");
            if (savepoint != null) {
                System.out.println("Savepoint: " + savepoint + "  (resume with ./run-local --from-savepoint " + savepoint
                        + " and the same settings)");
            }
            if (end == JobStatus.FAILED) {
                cluster.requestJobResult(job).get().getSerializedThrowable()
                        .ifPresent(t -> System.out.println("Failure: " + t.getFullStringifiedStackTrace()));
            }
        }
        TableSummary.print(config, System.out);
    }

    /** Stops the job with a savepoint (so buffered writes are flushed and the run can resume); cancels if that fails. */
    private static String stop(MiniCluster cluster, JobID job) throws Exception {
        Path savepoints = WORK_DIR.resolve("savepoints").toAbsolutePath();
        try {
            return cluster.stopWithSavepoint(job, savepoints.toUri().toString(), false, SavepointFormatType.CANONICAL)
                    .get(2, TimeUnit.MINUTES);
        } catch (Exception e) {
            System.out.println("Stop with savepoint failed (" + e.getMessage() + "); cancelling.");
            cluster.cancelJob(job).get();
            return null;
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (var paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void fail(String message) {
        System.err.println(message);
        System.exit(2);
    }
}
