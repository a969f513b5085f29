package io.periodtables.verification;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.job.PeriodTablesTopology;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;

/**
 * The production topology ({@link PeriodTablesTopology#build}, the one graph every caller runs) on
 * a MiniCluster in this JVM, against the run's stream and tables. A failure is retried three
 * times, then ends the run with its cause.
 */
final class JobUnderTest implements AutoCloseable {
    private final MiniCluster cluster;
    private final JobID job;

    private JobUnderTest(MiniCluster cluster, JobID job) {
        this.cluster = cluster;
        this.job = job;
    }

    static JobUnderTest start(PeriodTablesConfig config) throws Exception {
        Configuration flink = LoopbackFlink.configuration("0");
        flink.setString(MetricOptions.REPORTERS_LIST.key(), "watermark");
        flink.setString("metrics.reporter.watermark.factory.class", WatermarkProbe.Factory.class.getName());
        flink.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        flink.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        flink.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(2));
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(flink)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(config.get(ConfigKeys.PARALLELISM))
                .build());
        try {
            cluster.start();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
            env.setParallelism(config.get(ConfigKeys.PARALLELISM));
            env.enableCheckpointing(config.get(ConfigKeys.CHECKPOINT_INTERVAL).toMillis());
            PeriodTablesTopology.build(env, config, Clock.systemUTC());
            JobID job =
                    cluster.submitJob(env.getStreamGraph().getJobGraph()).get().getJobID();
            return new JobUnderTest(cluster, job);
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
    }

    /** Why the job failed (its root cause, one line), or empty while it runs. */
    Optional<String> failure() throws Exception {
        JobStatus status = cluster.getJobStatus(job).get();
        if (!status.isGloballyTerminalState()) {
            return Optional.empty();
        }
        Throwable cause = cluster.requestJobResult(job)
                .get()
                .getSerializedThrowable()
                .map(s -> s.deserializeError(JobUnderTest.class.getClassLoader()))
                .orElse(null);
        if (cause == null) {
            return Optional.of("the job ended (" + status + ")");
        }
        Throwable root = ExceptionUtils.stripExecutionException(cause);
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return Optional.of(root.toString());
    }

    /** Cancels the job (nothing to keep: the run's data is checked already) and stops the cluster. */
    @Override
    public void close() throws Exception {
        try {
            if (!cluster.getJobStatus(job).get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
                cluster.cancelJob(job).get(30, TimeUnit.SECONDS);
            }
        } finally {
            cluster.close();
        }
    }
}
