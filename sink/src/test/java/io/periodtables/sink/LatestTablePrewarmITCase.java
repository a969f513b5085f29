package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.dynamodb.LatestTable;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.TestTables;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The latest table takes a put per changed device a second: above the 4,000 writes/s a cold
 * on-demand table serves (strict fidelity layer), it must be prewarmed ({@code
 * latest.warm-writes}), whether the latest writers create it or find it from an earlier run.
 */
class LatestTablePrewarmITCase {
    private static final int UNITS_PER_ITEM = 10;

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    @Test
    void aLatestTableFromAnEarlierRunIsRaisedToLatestWarmWritesAndTakesThatBurst() {
        PeriodTablesConfig config = config("raised", "latest.warm-writes", "8000");
        String name = config.naming().latestTable();
        try (DynamoDbAsyncClient client = DynamoDbClients.of(config).newAsyncClient(2)) {
            new LatestTable(client, config.naming()).ensure().join(); // an earlier run's, cold
            assertThat(warmWrites(name)).isZero();

            new LatestTable(client, config.naming(), config.get(ConfigKeys.LATEST_WARM_WRITES))
                    .ensure()
                    .join();
        }
        assertThat(warmWrites(name)).isEqualTo(8_000L);

        DYNAMODB.emulator().layer().stopClock(); // one second of DynamoDB's clock, however slow the machine
        long unprocessed;
        try {
            unprocessed = offerUnits(name, 6_000);
        } finally {
            DYNAMODB.emulator().layer().startClock();
        }
        assertThat(unprocessed * UNITS_PER_ITEM)
                .as("write units of 600 devices' 10-unit puts in one second refused (a cold table serves 4,000)")
                .isZero();
    }

    @Test
    void theLatestWritersCreateTheTablePrewarmed() {
        PeriodTablesConfig config = config("created", "latest.warm-writes", "50000", "limits.max-table-units", "50000");
        // above DynamoDB's default per-table quota of 40,000, which an account raises for such a fleet
        DYNAMODB.emulator().layer().maxTableUnits(50_000);
        try (DynamoDbAsyncClient client = DynamoDbClients.of(config).newAsyncClient(2)) {
            new LatestTable(client, config.naming(), config.get(ConfigKeys.LATEST_WARM_WRITES))
                    .ensure()
                    .join();
        } finally {
            DYNAMODB.emulator().layer().maxTableUnits(40_000);
        }
        assertThat(warmWrites(config.naming().latestTable())).isEqualTo(50_000L);
    }

    private static PeriodTablesConfig config(String prefix, String... keyValues) {
        Map<String, String> map = new HashMap<>();
        map.put("dynamodb.endpoint", DYNAMODB.endpoint().toString());
        map.put("dynamodb.embedded", "false");
        map.put("tables.prefix", prefix);
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return ConfigLoader.fromMap(map, true);
    }

    private static long warmWrites(String table) {
        var warm =
                DYNAMODB.client().describeTable(b -> b.tableName(table)).table().warmThroughput();
        return warm == null || warm.writeUnitsPerSecond() == null ? 0 : warm.writeUnitsPerSecond();
    }

    /** Offers {@code units} as 10-unit latest items, one device each, in calls of 25; how many items came back. */
    private static long offerUnits(String table, int units) {
        try (DynamoDbClient client = DYNAMODB.emulator().syncClientWithoutRetries()) {
            return TestTables.refusedOfABurst(
                    client, table, units / UNITS_PER_ITEM, UNITS_PER_ITEM, "2026-11-22T13:00:00.000Z#00000000");
        }
    }
}
