package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.job.RollupCheck;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A TaskManager lost mid-run (issue 39) on the backend Managed Service for Apache Flink runs:
 * RocksDB with incremental checkpoints to a file system. Two TaskManagers each hold one of the
 * job's two slots; once three checkpoints have completed one of them is terminated, its tasks
 * fail, and the job restarts from its last checkpoint in the other TaskManager's slots and runs
 * to its end. Rollups and the latest table are on.
 */
class TaskManagerLossITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(2)
            .setNumberSlotsPerTaskManager(2)
            .setConfiguration(slotsSpreadOut())
            .build());

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final Duration BOUND = Duration.ofSeconds(60);

    @Test
    void aTaskManagerLostMidRunOnRocksDbLosesAndDoublesNoItemRollupOrLatestReading(
            @InjectMiniCluster MiniCluster cluster, @TempDir Path checkpoints) throws Exception {
        PeriodTablesConfig config =
                ReliabilityRun.config(DYNAMODB.emulator().endpoint(), "rel_tm_loss", "rollups.every", "PT15M,PT1H");
        ReliabilityRun run = ReliabilityRun.of(config, Fleet.standard());
        TestSource.Hooks hooks = new TestSource.Hooks();
        // 60 elements per checkpoint: at the third completed checkpoint at most 240 of the fleet's ~390 are out.
        hooks.rate = RateLimiterStrategy.perCheckpoint(60);
        AtomicReference<JobID> job = new AtomicReference<>();

        run.execute(
                hooks,
                env -> rocksDbWithIncrementalCheckpoints(env, checkpoints),
                running -> {
                    job.set(running.getJobID());
                    await("three checkpoints completed")
                            .atMost(BOUND)
                            .pollInterval(Duration.ofMillis(50))
                            .until(() -> checkpoints(cluster, running.getJobID())
                                            .getCounts()
                                            .getNumberOfCompletedCheckpoints()
                                    >= 3);
                    cluster.terminateTaskManager(0).get(BOUND.toSeconds(), TimeUnit.SECONDS);
                },
                BOUND);

        AccessExecutionGraph graph = cluster.getExecutionGraph(job.get()).get();
        assertThat(graph.getStatusTimestamp(JobStatus.RESTARTING))
                .as("the job restarted after the TaskManager was lost")
                .isPositive();
        assertThat(graph.getCheckpointStatsSnapshot().getLatestRestoredCheckpoint())
                .as("the checkpoint the job restarted from")
                .isNotNull()
                .satisfies(restored -> assertThat(restored.getCheckpointId()).isGreaterThanOrEqualTo(3));

        TableSnapshot tables = run.assertExactlyOnce(DYNAMODB.emulator());
        Map<String, List<Map<String, AttributeValue>>> items = tables.readingsByTable(config.naming());
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            assertThat(RollupCheck.stored(client, config))
                    .as("rollups")
                    .isNotEmpty()
                    .isEqualTo(RollupCheck.expected(config, items, end -> true));
            assertThat(RollupCheck.latest(client, config))
                    .as("latest table")
                    .isEqualTo(RollupCheck.expectedLatest(config, items));
        }
    }

    /** Each TaskManager takes one of the job's two slots, so losing either one fails tasks. */
    private static Configuration slotsSpreadOut() {
        Configuration flink = LoopbackFlink.configuration("0");
        flink.set(
                TaskManagerOptions.TASK_MANAGER_LOAD_BALANCE_MODE, TaskManagerOptions.TaskManagerLoadBalanceMode.SLOTS);
        return flink;
    }

    /** RocksDB, incremental checkpoints every 200 ms to {@code directory}; two restarts at most. */
    private static void rocksDbWithIncrementalCheckpoints(StreamExecutionEnvironment env, Path directory) {
        Configuration state = new Configuration();
        state.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        state.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        state.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        state.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, directory.toUri().toString());
        env.configure(state);
        ProcessFaultsITCase.checkpointsAndRestarts(env, Duration.ofMillis(200));
    }

    private static CheckpointStatsSnapshot checkpoints(MiniCluster cluster, JobID job) throws Exception {
        return cluster.getExecutionGraph(job).get().getCheckpointStatsSnapshot();
    }
}
