package io.periodtables.query;

import io.periodtables.archive.Archive;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.ReadingItems;
import io.periodtables.emulators.LoopbackFlink;
import io.periodtables.emulators.TestTables;
import io.periodtables.model.SinkRecord;
import io.periodtables.sink.PeriodTableSink;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The query ITCase's data path: tables created as the rotation would ({@code pk}/{@code sk}
 * strings), then filled by the real {@link PeriodTableSink} on a loopback MiniCluster.
 */
final class SinkWrittenTables {

    private SinkWrittenTables() {}

    static MiniClusterExtension miniCluster() {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(2)
                .setConfiguration(LoopbackFlink.configuration("0"))
                .build());
    }

    static void create(DynamoDbClient client, String... tables) {
        for (String table : tables) {
            client.createTable(b -> b.tableName(table)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(
                            a -> a.attributeName("pk").attributeType(ScalarAttributeType.S),
                            a -> a.attributeName("sk").attributeType(ScalarAttributeType.S))
                    .keySchema(
                            k -> k.attributeName("pk").keyType(KeyType.HASH),
                            k -> k.attributeName("sk").keyType(KeyType.RANGE)));
        }
        TestTables.awaitActive(client, tables);
    }

    /**
     * Writes {@code records} with the sink (parallelism 2, keyed by device); late tables get
     * {@code clock}'s month. With {@code archive.path}, the job's archive gets them too.
     */
    static void write(PeriodTablesConfig config, Clock clock, List<SinkRecord> records) throws Exception {
        PeriodTableSink sink = PeriodTableSink.builder()
                .config(config)
                .clock(clock)
                .retryBackoff(Duration.ofMillis(5), Duration.ofMillis(100))
                .maxTimeInBuffer(Duration.ofMillis(50))
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        DataStream<SinkRecord> stored = env.fromData(records, TypeInformation.of(SinkRecord.class))
                .keyBy(record -> record.reading().deviceId());
        stored.sinkTo(sink);
        if (config.find(ConfigKeys.ARCHIVE_PATH).isPresent()) {
            env.enableCheckpointing(200); // the archive's files are committed on checkpoints
            Archive.attach(stored, config, reading -> new ReadingItems(config).item(reading));
        }
        env.execute("query ITCase data");
    }
}
