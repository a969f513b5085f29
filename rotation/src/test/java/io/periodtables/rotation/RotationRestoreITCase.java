package io.periodtables.rotation;

import static io.periodtables.rotation.RotationTestBed.capacities;
import static io.periodtables.rotation.RotationTestBed.config;
import static io.periodtables.rotation.RotationTestBed.environment;
import static io.periodtables.rotation.RotationTestBed.rotation;
import static io.periodtables.rotation.RotationTestBed.source;
import static io.periodtables.rotation.RotationTestBed.tableAt;
import static io.periodtables.rotation.RotationTestBed.timestamps;
import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A redeploy from a savepoint: the restored rotation reads the tables back, repeats no capacity
 * change, and recreates nothing for a closed period although its readings are replayed.
 */
class RotationRestoreITCase {
    private static final Capacity CURRENT = Capacity.provisioned(1000, 300);
    private static final Capacity PREVIOUS = Capacity.provisioned(1, 100);
    private static final Capacity OLDER = Capacity.provisioned(1, 1);

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = RotationTestBed.miniCluster();

    @BeforeEach
    void reset() {
        RotationTestBed.reset();
    }

    @Test
    void aRestoreFromASavepointRepeatsNoCapacityChange(@TempDir Path savepoints) throws Exception {
        PeriodTablesConfig config = config();
        List<String> tables = new ArrayList<>();
        for (int minute = 0; minute <= 4; minute++) {
            tables.add(tableAt(config, 60L * minute));
        }
        // Run 1: event time to 10:03:35, where it stays; stop with a savepoint once 10:00 and
        // 10:01 are older and 10:02 is previous.
        StreamExecutionEnvironment first = environment();
        rotation(config)
                .attach(source(
                        first, new RotationTestBed.Readings(timestamps(0, 44, 5), null), Long.MAX_VALUE, "readings-1"));
        JobClient job = first.executeAsync("rotation before the savepoint");
        boolean settled = TestSetup.eventually(
                Duration.ofSeconds(60),
                () -> capacities(tables.subList(0, 4)).equals(List.of(OLDER, OLDER, PREVIOUS, CURRENT)));
        assertThat(settled).as("tiers before the savepoint").isTrue();
        String savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);
        // Meanwhile someone deletes the closed 10:00 table: its readings are replayed, and its period is closed.
        try (DynamoDbClient client = TestSetup.dynamoDb().syncClient()) {
            // its lowering to OLDER may still be UPDATING (DynamoDB refuses to delete it then)
            client.waiter().waitUntilTableExists(b -> b.tableName(tables.get(0)));
            client.deleteTable(b -> b.tableName(tables.get(0)));
            TestTables.awaitGone(client, tables.get(0)); // gone, not DELETING, when run 2 reads it back
        }
        CallLog.reset();

        // Run 2 from the savepoint (a new source): event time replays from 10:00:00 on to 10:04:10.
        StreamExecutionEnvironment second = environment();
        rotation(config)
                .attach(source(second, new RotationTestBed.Readings(timestamps(0, 51, 5), null), 51, "readings-2"))
                .sinkTo(new DiscardingSink<>());
        StreamGraph graph = second.getStreamGraph();
        graph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint, true));
        second.execute(graph);

        // Only the changes that became due after the savepoint: 10:02 to older, 10:03 to previous;
        // the tables were read back first. Nothing was recreated for a closed period.
        assertThat(CallLog.tablesOf("UpdateTable")).containsExactlyInAnyOrder(tables.get(2), tables.get(3));
        assertThat(CallLog.tablesOf("DescribeTable")).contains(tables.get(1), tables.get(2), tables.get(3));
        assertThat(CallLog.tablesOf("CreateTable")).containsExactly(tables.get(4));
        assertThat(capacities(tables)).containsExactly(null, OLDER, OLDER, PREVIOUS, CURRENT);
    }
}
