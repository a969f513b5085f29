package io.periodtables.sink;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.LoopbackFlink;
import io.periodtables.model.SinkRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** The sink's ITCase bed: a loopback MiniCluster with 2 slots and configurations for dynalite. */
final class SinkTestBed {

    private static final AtomicInteger PREFIXES = new AtomicInteger();

    private SinkTestBed() {}

    static MiniClusterExtension miniCluster() {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(2)
                .setConfiguration(LoopbackFlink.configuration("0"))
                .build());
    }

    /** Hourly tables, 4 shards, a fresh table prefix, short timeouts; more keys as pairs. */
    static PeriodTablesConfig config(Dynalite dynamoDb, String... keyValues) {
        List<String> pairs = new ArrayList<>(List.of(
                "tables.prefix",
                "t" + PREFIXES.incrementAndGet(),
                "dynamodb.endpoint",
                dynamoDb.endpoint().toString(),
                "sink.request-timeout",
                "PT1S"));
        pairs.addAll(List.of(keyValues));
        return TestConfigs.hourly4Shards(pairs.toArray(String[]::new));
    }

    /** A sink builder with test-sized backoff and buffering. */
    static PeriodTableSink.Builder sink(PeriodTablesConfig config) {
        return PeriodTableSink.builder()
                .config(config)
                .retryBackoff(Duration.ofMillis(5), Duration.ofMillis(100))
                .maxTimeInBuffer(Duration.ofMillis(50));
    }

    /** Writes {@code records} through {@code sink} on the MiniCluster, parallelism 2, keyed by device. */
    static void run(PeriodTableSink sink, List<SinkRecord> records) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        DataStream<SinkRecord> input = env.fromData(records, TypeInformation.of(SinkRecord.class));
        input.keyBy(SinkTestBed::keyOf).sinkTo(sink);
        env.execute("period-table sink test");
    }

    /** The device of a reading, the reason of a rejection: the order that matters stays in one subtask. */
    static String keyOf(SinkRecord record) {
        return record.kind() == SinkRecord.Kind.REJECTED
                ? record.rejection().reason().code()
                : record.reading().deviceId();
    }
}
