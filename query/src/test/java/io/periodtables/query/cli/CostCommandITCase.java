package io.periodtables.query.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.TableNaming;
import io.periodtables.emulators.DynaliteExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * {@code cost} against dynalite with known tables: an older, a previous and a sized
 * current daily table, and an on-demand late table. The monthly costs, checked by hand at
 * us-east-1 prices ($0.00065/WCU-h, $0.00013/RCU-h, 730 h):
 * 1/1 = 730 * 0.00078 = $0.57; 1/100 = 730 * 0.01365 = $9.96; 858/300 = 730 * 0.5967 = $435.59;
 * on-demand $0.00 (storage of a few hundred bytes rounds to nothing); total $446.12.
 */
class CostCommandITCase {
    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static DynamoDbClient client;
    private static PeriodTablesConfig config;

    @BeforeAll
    static void createKnownTables() {
        client = DYNAMODB.client();
        config = ConfigLoader.fromMap(
                Map.of(
                        "tables.prefix",
                        "cost",
                        "dynamodb.endpoint",
                        DYNAMODB.endpoint().toString()),
                false);
        TableNaming naming = config.naming();
        create(naming.periodTableOf(Instant.parse("2025-03-01T12:00:00Z")), 1, 1);
        create(naming.periodTableOf(Instant.parse("2025-03-02T12:00:00Z")), 1, 100);
        String current = naming.periodTableOf(Instant.parse("2025-03-03T12:00:00Z"));
        create(current, 858, 300);
        create(naming.lateTable(Instant.parse("2025-03-03T12:00:00Z")), 0, 0);
        create("other_2025-03-03", 5000, 5000); // another prefix: not ours, not counted
        for (int i = 0; i < 10; i++) {
            Map<String, AttributeValue> item = Map.of(
                    "pk",
                    AttributeValue.fromS("device-1"),
                    "sk",
                    AttributeValue.fromS("2025-03-03T12:00:0" + i + "Z"),
                    "temperature",
                    AttributeValue.fromN("21.5"));
            client.putItem(b -> b.tableName(current).item(item));
        }
    }

    @Test
    void eachTablesMonthlyCostAndTierTheTotalAndOneOnDemandTable() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = QueryCli.run(
                new String[] {
                    "cost",
                    "--tables.prefix",
                    "cost",
                    "--dynamodb.endpoint",
                    DYNAMODB.endpoint().toString()
                },
                new PrintStream(out, true),
                new PrintStream(err, true));
        String report = out.toString(StandardCharsets.UTF_8);

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(report)
                .containsPattern("cost_2025-03-01 +OLDER +1/1 +0 +0 +0\\.57\\n")
                .containsPattern("cost_2025-03-02 +PREVIOUS +1/100 +0 +0 +9\\.96\\n")
                .containsPattern("cost_2025-03-03 +CURRENT +858/300 +10 +[\\d,]+ +435\\.59\\n")
                .containsPattern("cost_late_2025-03 +late +on-demand +0 +0 +0\\.00\\n")
                .contains("total: $446.12/month for 4 tables, 10 items")
                .contains("one on-demand table: $0.00/month storage + $0.00 once to write the 10 items (1 WCU each)")
                .doesNotContain("other_");
    }

    /** Given the fleet's shape, cost also prices the on-demand tables' writes, which DescribeTable does not count. */
    @Test
    void theFleetsShapePricesTheWritesOfTheOnDemandTables() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = QueryCli.run(
                new String[] {
                    "cost",
                    "--tables.prefix",
                    "cost",
                    "--dynamodb.endpoint",
                    DYNAMODB.endpoint().toString(),
                    "--devices",
                    "10000",
                    "--reading-interval",
                    "PT10S"
                },
                new PrintStream(out, true),
                new PrintStream(err, true));
        String report = out.toString(StandardCharsets.UTF_8);

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        double latest = 1_000 / 6.0 * 730 * 3600 / 1e6 * 0.625; // a put a minute for 10,000 devices
        assertThat(report)
                .contains("total: $446.12/month for 4 tables, 10 items")
                .contains("10,000 devices, a reading every PT10S each (1,000 readings/s)")
                .contains(String.format(java.util.Locale.ROOT, "$%,.2f/month  cost_latest: ", latest))
                .contains("cost_rollups_<label>: none (rollups.every unset)");
    }

    private static void create(String table, long wcu, long rcu) {
        client.createTable(b -> {
            b.tableName(table)
                    .keySchema(
                            k -> k.attributeName("pk").keyType(KeyType.HASH),
                            k -> k.attributeName("sk").keyType(KeyType.RANGE))
                    .attributeDefinitions(
                            a -> a.attributeName("pk").attributeType(ScalarAttributeType.S),
                            a -> a.attributeName("sk").attributeType(ScalarAttributeType.S));
            if (wcu == 0) {
                b.billingMode(BillingMode.PAY_PER_REQUEST);
            } else {
                b.provisionedThroughput(p -> p.writeCapacityUnits(wcu).readCapacityUnits(rcu));
            }
        });
        DYNAMODB.awaitActive(table); // DynamoDB answers item calls on a CREATING table "not found"
    }
}
