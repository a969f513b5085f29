package io.periodtables.bench;

import io.periodtables.emulators.LoopbackFlink;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * One MiniCluster (1 task manager, 2 slots, everything on 127.0.0.1, {@link BenchMetrics} as
 * reporter) shared by all runs of a benchmark JVM, so no run pays for starting a cluster.
 */
public final class BenchCluster implements AutoCloseable {

    public static final int PARALLELISM = 2;

    private final MiniCluster cluster;
    private volatile JobID lastJob;

    public BenchCluster() throws Exception {
        this(new Configuration());
    }

    /** As {@link #BenchCluster()}, with {@code extra} set on the cluster (e.g. its managed memory). */
    public BenchCluster(Configuration extra) throws Exception {
        Configuration flink = LoopbackFlink.configuration("0");
        flink.addAll(extra);
        flink.setString(MetricOptions.REPORTERS_LIST.key(), "bench");
        flink.setString("metrics.reporter.bench.factory.class", BenchMetrics.Factory.class.getName());
        flink.setString("metrics.reporter.bench.interval", "1 s");
        cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(flink)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(PARALLELISM)
                .build());
        cluster.start();
    }

    public MiniCluster miniCluster() {
        return cluster;
    }

    /** The job graph of the topology {@code build} adds to a fresh environment (parallelism 2). */
    public static JobGraph graphOf(long checkpointMillis, Consumer<StreamExecutionEnvironment> build) {
        return graphOf(new Configuration(), checkpointMillis, build);
    }

    /** As {@link #graphOf(long, Consumer)}, with job configuration (e.g. a checkpoint directory). */
    public static JobGraph graphOf(
            Configuration jobConfig, long checkpointMillis, Consumer<StreamExecutionEnvironment> build) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(jobConfig);
        env.setParallelism(PARALLELISM);
        if (checkpointMillis > 0) {
            env.enableCheckpointing(checkpointMillis);
        }
        build.accept(env);
        return env.getStreamGraph().getJobGraph();
    }

    public JobID submit(JobGraph graph) throws Exception {
        lastJob = cluster.submitJob(graph).get().getJobID();
        return lastJob;
    }

    /** The job {@link #submit} submitted last. */
    public JobID lastJob() {
        return lastJob;
    }

    /** Waits for the job's end; fails when the job failed. */
    public void await(JobID job, long timeoutMinutes) throws Exception {
        JobResult result = cluster.requestJobResult(job).get(timeoutMinutes, TimeUnit.MINUTES);
        if (!result.isSuccess()) {
            Throwable cause = result.getSerializedThrowable()
                    .map(t -> t.deserializeError(getClass().getClassLoader()))
                    .orElse(null);
            throw new IllegalStateException("benchmark job " + job + " ended " + result.getApplicationStatus(), cause);
        }
    }

    /** Submits {@code graph} and waits for its end. */
    public void run(JobGraph graph) throws Exception {
        await(submit(graph), 30);
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
