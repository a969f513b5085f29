package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.model.SinkRecord;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.model.Select;

/**
 * A write-through sink's checkpoint holds none of its entries: when a checkpoint completes, every
 * record that passed before its barrier is in DynamoDB, although the buffer would keep entries for
 * seconds and a checkpoint of the default sink leaves up to a batch in its state.
 */
class WriteThroughCheckpointsITCase {

    private static final int N = 370;

    @RegisterExtension
    static final MiniClusterExtension FLINK = SinkTestBed.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    @Test
    void everyRecordBeforeACompletedCheckpointIsStored() throws Exception {
        PeriodTablesConfig config = SinkTestBed.config(DYNAMODB.emulator());
        Set<String> tables = TestReadings.expectedTables(config, N).keySet();
        tables.forEach(table -> DynamoDbTables.create(DYNAMODB.client(), table));
        CheckedAtCheckpoints.TABLES.clear();
        CheckedAtCheckpoints.TABLES.addAll(tables);
        CheckedAtCheckpoints.CHECKED.clear();

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(200);
        // 37 records between checkpoints: never a whole number of 25-item batches
        DataGeneratorSource<SinkRecord> readings = new DataGeneratorSource<>(
                index -> SinkRecord.period(TestReadings.reading(index.intValue(), N)),
                N,
                RateLimiterStrategy.perCheckpoint(37),
                TypeInformation.of(SinkRecord.class));
        // A long buffer time: only the checkpoint's flush writes a partial batch.
        PeriodTableSink sink = SinkTestBed.sink(config)
                .maxTimeInBuffer(Duration.ofSeconds(30))
                .writeThroughCheckpoints()
                .build();
        env.fromSource(readings, WatermarkStrategy.noWatermarks(), "readings")
                .map(new CheckedAtCheckpoints())
                .sinkTo(sink);

        env.execute("write-through checkpoints test");

        assertThat(CheckedAtCheckpoints.CHECKED)
                .as("checkpoints completed mid-stream")
                .hasSizeGreaterThan(3);
        assertThat(CheckedAtCheckpoints.CHECKED)
                .allSatisfy(check -> assertThat(check.stored())
                        .as("items stored when checkpoint %s completed", check.checkpoint())
                        .isGreaterThanOrEqualTo(check.passed()));
        assertThat(CheckedAtCheckpoints.CHECKED.stream().anyMatch(check -> check.passed() % 25 != 0))
                .as("a checkpoint with a partial batch")
                .isTrue();
    }

    record Check(long checkpoint, long passed, long stored) {}

    /** Counts the records passing to the sink; at each completed checkpoint, the items stored. */
    static final class CheckedAtCheckpoints
            implements MapFunction<SinkRecord, SinkRecord>, CheckpointedFunction, CheckpointListener {
        private static final long serialVersionUID = 1L;
        static final List<String> TABLES = new CopyOnWriteArrayList<>();
        static final List<Check> CHECKED = new CopyOnWriteArrayList<>();

        private final Map<Long, Long> passedAtBarrier = new ConcurrentHashMap<>();
        private long passed;

        @Override
        public SinkRecord map(SinkRecord record) {
            passed++;
            return record;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            passedAtBarrier.put(context.getCheckpointId(), passed);
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {}

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            Long before = passedAtBarrier.remove(checkpointId);
            if (before == null || before == 0) {
                return;
            }
            long stored = 0;
            for (String table : TABLES) {
                stored += DYNAMODB.client()
                        .scan(b -> b.tableName(table).select(Select.COUNT))
                        .count();
            }
            CHECKED.add(new Check(checkpointId, before, stored));
        }
    }
}
