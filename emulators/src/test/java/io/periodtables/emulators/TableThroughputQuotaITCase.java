package io.periodtables.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.LimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingReason;

/**
 * DynamoDB's default per-table throughput quota in the fidelity layer, from the quotas page ("Per
 * table: 40,000 read request units and 40,000 write request units" on-demand, as many capacity
 * units provisioned; docs/DESIGN.md quotes it): what a table may be given and what an on-demand one
 * serves. Written from the documentation alone, the layer's clock stopped and moved by hand.
 */
class TableThroughputQuotaITCase {
    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final Duration TABLE_STATE = Duration.ofMillis(500);

    private static Dynalite dynamoDb;
    /** A client that does not retry, so that a refusal reaches the test as DynamoDB answered it. */
    private static DynamoDbClient once;

    private static int tables;

    @BeforeAll
    static void emulator() {
        dynamoDb = DYNAMODB.emulator();
        once = dynamoDb.syncClientWithoutRetries();
    }

    @AfterAll
    static void closeClient() {
        once.close();
    }

    @BeforeEach
    void stopTheClock() {
        dynamoDb.layer().stopClock();
    }

    @AfterEach
    void quotaBack() {
        dynamoDb.layer().reset();
    }

    @Test
    void aProvisionedTableIsNeverGivenMoreThan40000UnitsOfEither() {
        assertThatThrownBy(() -> once.createTable(provisioned(next(), 40_001, 1)))
                .isInstanceOf(LimitExceededException.class)
                .hasMessageContaining("40000");
        assertThatThrownBy(() -> once.createTable(provisioned(next(), 1, 40_001)))
                .isInstanceOf(LimitExceededException.class);
        String table = active(provisioned(next(), 40_000, 40_000));

        assertThatThrownBy(() -> once.updateTable(b -> b.tableName(table)
                        .provisionedThroughput(
                                p -> p.writeCapacityUnits(40_001L).readCapacityUnits(40_000L))))
                .isInstanceOf(LimitExceededException.class);
        ProvisionedThroughputDescription kept =
                once.describeTable(b -> b.tableName(table)).table().provisionedThroughput();
        assertThat(kept.writeCapacityUnits()).isEqualTo(40_000L);
        assertThat(dynamoDb.layer().refused("refusedTableUnits")).isEqualTo(3);
    }

    @Test
    void anOnDemandMaximumOrWarmThroughputAbove40000IsRefused() {
        assertThatThrownBy(() -> once.createTable(TestTables.onDemand(next()).toBuilder()
                        .onDemandThroughput(o -> o.maxWriteRequestUnits(40_001L))
                        .build()))
                .isInstanceOf(LimitExceededException.class);
        assertThatThrownBy(() -> once.createTable(TestTables.onDemand(next()).toBuilder()
                        .warmThroughput(w -> w.writeUnitsPerSecond(40_001L))
                        .build()))
                .isInstanceOf(LimitExceededException.class);
        String table = active(TestTables.onDemand(next()).toBuilder()
                .onDemandThroughput(o -> o.maxWriteRequestUnits(40_000L).maxReadRequestUnits(40_000L))
                .warmThroughput(w -> w.writeUnitsPerSecond(40_000L).readUnitsPerSecond(40_000L))
                .build());

        assertThatThrownBy(() -> once.updateTable(
                        b -> b.tableName(table).onDemandThroughput(o -> o.maxReadRequestUnits(50_000L))))
                .isInstanceOf(LimitExceededException.class);
        assertThatThrownBy(() ->
                        once.updateTable(b -> b.tableName(table).warmThroughput(w -> w.readUnitsPerSecond(40_001L))))
                .isInstanceOf(LimitExceededException.class);
        assertThat(once.describeTable(b -> b.tableName(table))
                        .table()
                        .onDemandThroughput()
                        .maxReadRequestUnits())
                .isEqualTo(40_000L);
        assertThat(dynamoDb.layer().refused("refusedTableUnits")).isEqualTo(4);
    }

    @Test
    void aWarmOrMaximumThroughputAboveTheQuotaGetsTheAnswerATestPicks() {
        // DynamoDB's documentation bounds both by the quota and names no answer (docs/DESIGN.md)
        dynamoDb.layer().aboveTableQuota(FidelityLayer.AboveTableQuota.VALIDATION);
        assertThatThrownBy(() -> once.createTable(TestTables.onDemand(next()).toBuilder()
                        .warmThroughput(w -> w.writeUnitsPerSecond(40_001L))
                        .build()))
                .asInstanceOf(type(DynamoDbException.class))
                .extracting(e -> e.awsErrorDetails().errorCode())
                .isEqualTo("ValidationException");
        String table = active(TestTables.onDemand(next()));
        assertThatThrownBy(() -> once.updateTable(
                        b -> b.tableName(table).onDemandThroughput(o -> o.maxWriteRequestUnits(40_001L))))
                .asInstanceOf(type(DynamoDbException.class))
                .extracting(e -> e.awsErrorDetails().errorCode())
                .isEqualTo("ValidationException");

        dynamoDb.layer().aboveTableQuota(FidelityLayer.AboveTableQuota.ACCEPTED);
        String accepted = active(TestTables.onDemand(next()).toBuilder()
                .warmThroughput(w -> w.writeUnitsPerSecond(50_000L))
                .onDemandThroughput(o -> o.maxWriteRequestUnits(60_000L))
                .build());
        TableDescription kept = once.describeTable(b -> b.tableName(accepted)).table();
        assertThat(kept.warmThroughput().writeUnitsPerSecond()).isEqualTo(50_000L);
        assertThat(kept.onDemandThroughput().maxWriteRequestUnits()).isEqualTo(60_000L);
        assertThat(dynamoDb.layer().refused("refusedTableUnits")).isEqualTo(2);
    }

    @Test
    void aRaisedQuotaLetsATableHaveMore() {
        dynamoDb.layer().maxTableUnits(80_000);

        active(provisioned(next(), 80_000, 40_000));
        active(TestTables.onDemand(next()).toBuilder()
                .warmThroughput(w -> w.writeUnitsPerSecond(60_000L))
                .build());
        assertThat(dynamoDb.layer().refused("refusedTableUnits")).isZero();
    }

    @Test
    void anOnDemandTableServesAtMostItsQuotaAndSaysSoInItsThrottlingReasons() {
        // a quota of 3,000, below the 4,000 a new table serves: the rule the 40,000 default follows, at a tenth of the
        // traffic
        dynamoDb.layer().maxTableUnits(3_000);
        String table = active(TestTables.onDemand(next()));

        long refused = TestTables.refusedOfABurst(once, table, 400, 10, "a");

        assertThat(refused * 10)
                .as("write units of 4,000 in one second refused")
                .isEqualTo(1_000);
        assertThatThrownBy(() -> once.putItem(b -> b.tableName(table)
                        .item(Map.of("pk", AttributeValue.fromS("late"), "sk", AttributeValue.fromS("a")))))
                .asInstanceOf(type(ProvisionedThroughputExceededException.class))
                .extracting(ProvisionedThroughputExceededException::throttlingReasons)
                .asList()
                .extracting(r -> ((ThrottlingReason) r).reason())
                .containsExactly("TableWriteAccountLimitExceeded");
    }

    private static String next() {
        return "quota" + (++tables);
    }

    private static CreateTableRequest provisioned(String table, long writeUnits, long readUnits) {
        return TestTables.onDemand(table).toBuilder()
                .billingMode(BillingMode.PROVISIONED)
                .provisionedThroughput(p -> p.writeCapacityUnits(writeUnits).readCapacityUnits(readUnits))
                .build();
    }

    /** Creates the table and moves the clock past CREATING. */
    private static String active(CreateTableRequest request) {
        once.createTable(request);
        dynamoDb.layer().advanceClock(TABLE_STATE);
        return request.tableName();
    }
}
