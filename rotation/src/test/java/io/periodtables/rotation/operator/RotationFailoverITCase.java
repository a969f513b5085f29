package io.periodtables.rotation.operator;

import static io.periodtables.rotation.RotationTestBed.capacities;
import static io.periodtables.rotation.RotationTestBed.config;
import static io.periodtables.rotation.RotationTestBed.source;
import static io.periodtables.rotation.RotationTestBed.tableAt;
import static io.periodtables.rotation.RotationTestBed.timestamps;
import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.WritersTable;
import io.periodtables.rotation.RotationTestBed;
import io.periodtables.rotation.TestSetup;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptionsInternal;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * A failover keeps the job id, and so may a restore: the rotation lowers a closed table on the
 * word of the writers of its own run and attempt only, never on what an earlier attempt's or an
 * earlier run's writers reported.
 */
class RotationFailoverITCase {
    private static final Capacity CURRENT = Capacity.provisioned(1000, 300);

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = RotationTestBed.miniCluster();

    @BeforeEach
    void reset() {
        RotationTestBed.reset();
    }

    @Test
    void aRestartedRotationWaitsForTheWritersOfItsOwnAttempt() throws Exception {
        PeriodTablesConfig config = config();
        Configuration restart = new Configuration();
        restart.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        restart.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
        restart.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(restart);
        env.setParallelism(1);
        // 10:00:00 to 10:02:25: the tables of 10:00 and 10:01 close; the writers of attempt 1
        // (none in this job) never report, those of attempt 0 said "everything written".
        List<Long> times = timestamps(0, 30, 5);
        RotationTestBed.rotation(config)
                .waitForWriters(List.of("period"))
                .finishTimeout(Duration.ofSeconds(2))
                .attach(source(env, new RotationTestBed.Readings(times, null), times.size(), "readings")
                        .map(new FirstAttemptReportsAndFails(config))
                        .uid("first-attempt-fails"))
                .sinkTo(new DiscardingSink<>());
        env.execute();

        assertThat(capacities(List.of(tableAt(config, 0), tableAt(config, 60))))
                .as("closed tables wait for the writers of the running attempt")
                .containsExactly(CURRENT, CURRENT);
    }

    /**
     * A restore that keeps the job id (application mode with high availability, or an operator
     * that sets it) starts again at attempt 0: the previous run's writers, whose items are of
     * attempt 1 after a failover and say "everything written", are not this run's.
     */
    @Test
    void aRunUnderAJobIdKeptFromAnEarlierRunWaitsForItsOwnWriters() throws Exception {
        PeriodTablesConfig config = config();
        JobID kept = JobID.generate();
        try (DynamoDbAsyncClient client = TestSetup.clients(config).newAsyncClient(1)) {
            WritersTable writers = new WritersTable(client, config.naming());
            writers.ensure().join();
            WritersTable.Writer previous = new WritersTable.Writer(
                    "period", WritersTable.run(kept.toString(), "earlier", OptionalLong.empty()), 0, 1, 1);
            writers.start(previous, Instant.now()).join();
            writers.publish(previous, Long.MAX_VALUE, Instant.now()).join();
        }
        Configuration sameJobId = new Configuration();
        sameJobId.set(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID, kept.toString());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(sameJobId);
        env.setParallelism(1);
        List<Long> times = timestamps(0, 30, 5);
        RotationTestBed.rotation(config)
                .waitForWriters(List.of("period"))
                .writerRun("this")
                .finishTimeout(Duration.ofSeconds(2))
                .attach(source(env, new RotationTestBed.Readings(times, null), times.size(), "readings"))
                .sinkTo(new DiscardingSink<>());
        assertThat(env.execute().getJobID()).isEqualTo(kept);

        assertThat(capacities(List.of(tableAt(config, 0), tableAt(config, 60))))
                .as("closed tables wait for the writers of this run")
                .containsExactly(CURRENT, CURRENT);
    }

    /**
     * In attempt 0, reports for the one "period" writer of the job that everything is written,
     * then fails the task: the job restarts as attempt 1 with the same job id.
     */
    private static final class FirstAttemptReportsAndFails extends RichMapFunction<Long, Long> {
        private static final long serialVersionUID = 1L;
        private final PeriodTablesConfig config;

        FirstAttemptReportsAndFails(PeriodTablesConfig config) {
            this.config = config;
        }

        @Override
        public void open(OpenContext context) {
            int attempt = getRuntimeContext().getTaskInfo().getAttemptNumber();
            if (attempt > 0) {
                return;
            }
            String jobId = getRuntimeContext().getJobInfo().getJobId().toString();
            try (DynamoDbAsyncClient client = TestSetup.clients(config).newAsyncClient(1)) {
                WritersTable writers = new WritersTable(client, config.naming());
                // the run of this job graph (no checkpoint to restore from in either attempt)
                WritersTable.Writer writer = new WritersTable.Writer(
                        "period", WritersTable.run(jobId, "", OptionalLong.empty()), 0, 1, attempt);
                writers.ensure().join();
                writers.start(writer, Instant.now()).join();
                writers.publish(writer, Long.MAX_VALUE, Instant.now()).join();
            }
            throw new IllegalStateException("injected failure of attempt 0");
        }

        @Override
        public Long map(Long value) {
            return value;
        }
    }
}
