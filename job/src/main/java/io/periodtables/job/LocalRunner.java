package io.periodtables.job;

import io.periodtables.conf.ConfigException;
import io.periodtables.conf.ConfigKeys;
import io.periodtables.conf.ConfigLoader;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.emulators.DynamoDbLocal;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.time.Clock;
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
 * a bounded run (default: until the source ends or Ctrl-C).
 */
public final class LocalRunner {

    private LocalRunner() {}

    public static void main(String[] args) throws Exception {
        Duration duration = null;
        List<String> jobArgs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--duration") && i + 1 < args.length) {
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
                embedded = DynamoDbLocal.start();
                config = config.with(ConfigKeys.DYNAMODB_ENDPOINT, embedded.endpoint().toString());
                System.out.println("Embedded DynamoDB Local at " + embedded.endpoint());
            }
            run(config, duration);
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
        // Flink and the SDK leave non-daemon threads behind; the run is over.
        System.exit(0);
    }

    private static void run(PeriodTablesConfig config, Duration duration) throws Exception {
        Configuration flink = new Configuration();
        flink.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        flink.set(RestOptions.ADDRESS, "127.0.0.1");
        flink.set(RestOptions.BIND_PORT, "8081-8099");
        flink.set(JobManagerOptions.ADDRESS, "127.0.0.1");
        flink.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
        flink.set(TaskManagerOptions.HOST, "127.0.0.1");
        flink.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
        flink.setString(MetricOptions.REPORTERS_LIST.key(), "status");
        flink.setString("metrics.reporter.status.factory.class", LocalStatusReporter.Factory.class.getName());
        int parallelism = config.get(ConfigKeys.PARALLELISM);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        env.setParallelism(parallelism);
        env.enableCheckpointing(config.get(ConfigKeys.CHECKPOINT_INTERVAL).toMillis());
        PeriodTablesTopology.build(env, config, Clock.systemUTC());
        JobGraph jobGraph = env.getStreamGraph().getJobGraph();

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
            if (!state.isGloballyTerminalState()) {
                cluster.cancelJob(job).get();
            }
            JobStatus end = cluster.getJobStatus(job).get();
            System.out.println(status.line());
            System.out.println("Job " + (state.isGloballyTerminalState() ? state : "stopped after " + duration) + ".");
            if (end == JobStatus.FAILED) {
                cluster.requestJobResult(job).get().getSerializedThrowable()
                        .ifPresent(t -> System.out.println("Failure: " + t.getFullStringifiedStackTrace()));
            }
        }
        TableSummary.print(config, System.out);
    }

    private static void fail(String message) {
        System.err.println(message);
        System.exit(2);
    }
}
