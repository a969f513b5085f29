package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.model.SinkRecord;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * At-least-once through checkpoints: a job that fails once mid-stream and restarts from its last
 * checkpoint (sink buffer restored from writer state, source rewound) ends with exactly the table
 * contents of a run without failure, because replayed readings rewrite the same items.
 */
class PeriodTableSinkRestoreITCase {

    private static final int N = 400;

    @RegisterExtension
    static final MiniClusterExtension FLINK = SinkTestBed.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    @Test
    void restartFromCheckpointMidStreamYieldsTheTablesOfARunWithoutFailure() throws Exception {
        PeriodTablesConfig config = SinkTestBed.config(DYNAMODB.emulator());
        Map<String, Map<List<String>, Map<String, AttributeValue>>> expected = TestReadings.expectedTables(config, N);
        expected.keySet().forEach(table -> DynamoDbTables.create(DYNAMODB.client(), table));
        FailOnceAfterCheckpoint.reset();

        Configuration restart = new Configuration();
        restart.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        restart.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
        restart.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.configure(restart);
        env.setParallelism(2);
        env.enableCheckpointing(200);
        // N/8 readings per checkpoint: the stream is still running when the first checkpoint completes.
        DataGeneratorSource<SinkRecord> readings = new DataGeneratorSource<>(
                index -> SinkRecord.period(TestReadings.reading(index.intValue(), N)),
                N,
                RateLimiterStrategy.perCheckpoint(N / 8),
                TypeInformation.of(SinkRecord.class));
        // A long buffer time keeps entries in the sink's buffer, so checkpoints carry writer state.
        PeriodTableSink sink =
                SinkTestBed.sink(config).maxTimeInBuffer(Duration.ofSeconds(5)).build();
        env.fromSource(readings, WatermarkStrategy.noWatermarks(), "readings")
                .map(new FailOnceAfterCheckpoint())
                .keyBy(SinkTestBed::keyOf)
                .sinkTo(sink);

        env.execute("period-table sink restore test");

        assertThat(FailOnceAfterCheckpoint.FAILED).isTrue();
        expected.forEach((table, items) ->
                assertThat(DynamoDbTables.contents(DYNAMODB.client(), table)).isEqualTo(items));
    }

    /** Throws once, on the first record after the first completed checkpoint. */
    static final class FailOnceAfterCheckpoint implements MapFunction<SinkRecord, SinkRecord>, CheckpointListener {
        private static final long serialVersionUID = 1L;

        static final AtomicBoolean FAILED = new AtomicBoolean();
        private static final AtomicBoolean CHECKPOINTED = new AtomicBoolean();

        static void reset() {
            FAILED.set(false);
            CHECKPOINTED.set(false);
        }

        @Override
        public SinkRecord map(SinkRecord record) {
            if (CHECKPOINTED.get() && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure after a checkpoint");
            }
            return record;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            CHECKPOINTED.set(true);
        }
    }
}
