package io.periodtables.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.LimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/** Table-management faults of {@link DynamoDbFaults} and tables held in CREATING. */
class DynamoDbTableFaultsITCase {
    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static Dynalite local;
    private static DynamoDbClient plain;
    private static DynamoDbClient sync;
    private static DynamoDbAsyncClient async;
    private static int tables;
    private String table;

    @BeforeAll
    static void startDynamoDb() {
        local = DYNAMODB.emulator();
        plain = local.syncClient();
        sync = FaultyClients.sync(local);
        async = FaultyClients.async(local);
    }

    @AfterAll
    static void stopDynamoDb() {
        async.close();
        sync.close();
        plain.close();
    }

    @BeforeEach
    void freshScript() {
        DynamoDbFaults.reset();
        table = "tables" + (++tables);
    }

    @Test
    void limitExceededOnCreateTableCreatesNothing() {
        DynamoDbFaults.on("CreateTable").once().limitExceeded();

        assertThatThrownBy(() -> DynaliteITCase.createTable(sync, table))
                .isInstanceOf(LimitExceededException.class)
                .hasMessageContaining("Subscriber limit exceeded");
        assertThat(plain.listTables().tableNames()).doesNotContain(table);

        DynaliteITCase.createTable(sync, table);
        assertThat(plain.listTables().tableNames()).contains(table);
    }

    @Test
    void resourceInUseOnUpdateTable() {
        DynaliteITCase.createTable(plain, table);
        DynamoDbFaults.on("UpdateTable").table(table).once().resourceInUse();

        assertThatThrownBy(() -> sync.updateTable(b -> b.tableName(table).billingMode("PAY_PER_REQUEST")))
                .isInstanceOf(ResourceInUseException.class);
        assertThat(DynamoDbFaults.injected("UpdateTable", FaultKind.RESOURCE_IN_USE))
                .isEqualTo(1);
    }

    @Test
    void enablingTtlTwiceFailsWithTheServiceMessage() {
        DynaliteITCase.createTable(plain, table);
        DynamoDbFaults.on("UpdateTimeToLive").once().ttlAlreadyEnabled();

        assertThatThrownBy(() -> async.updateTimeToLive(b -> b.tableName(table)
                                .timeToLiveSpecification(
                                        t -> t.attributeName("expires").enabled(true)))
                        .join())
                .isInstanceOf(CompletionException.class)
                .cause()
                .isInstanceOf(DynamoDbException.class)
                .hasMessageContaining("TimeToLive is already enabled")
                .extracting(e -> ((DynamoDbException) e).awsErrorDetails().errorCode())
                .isEqualTo("ValidationException");
    }

    @Test
    void aTableHeldInCreatingRejectsWritesUntilReleased() {
        DynamoDbFaults.holdCreating(table);

        assertThat(async.createTable(DynaliteITCase.createTableRequest(table))
                        .join()
                        .tableDescription()
                        .tableStatus())
                .isEqualTo(TableStatus.CREATING);
        assertThat(sync.describeTable(b -> b.tableName(table)).table().tableStatus())
                .isEqualTo(TableStatus.CREATING);
        assertThatThrownBy(() -> sync.putItem(b -> b.tableName(table).item(DynaliteITCase.item("c1", "1"))))
                .isInstanceOf(ResourceNotFoundException.class);
        assertThatThrownBy(() -> sync.updateTimeToLive(b -> b.tableName(table)
                        .timeToLiveSpecification(t -> t.attributeName("expires").enabled(true))))
                .isInstanceOf(ResourceInUseException.class)
                .hasMessageContaining("Table is being created");

        DynamoDbFaults.release(table);

        TestTables.awaitActive(sync, table); // the layer's own CREATING (500 ms) may not be over yet
        sync.putItem(b -> b.tableName(table).item(DynaliteITCase.item("c1", "1")));
        assertThat(DynamoDbFaults.injected(FaultKind.TABLE_CREATING)).isEqualTo(2);
        assertThat(DynamoDbFaults.injected("PutItem", FaultKind.RESOURCE_NOT_FOUND))
                .isEqualTo(1);
    }

    @Test
    void aTimedHoldEndsByItself() {
        DynaliteITCase.createTable(plain, table);
        DynamoDbFaults.holdCreating(table, Duration.ofMillis(200));

        Polling.until(
                () -> sync.describeTable(b -> b.tableName(table)).table().tableStatus() == TableStatus.ACTIVE,
                "the hold on " + table + " to end");
        assertThat(DynamoDbFaults.count("DescribeTable")).isPositive();
    }
}
