package io.periodtables.rotation.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.emulators.Dynalite;
import io.periodtables.rotation.CallLog;
import io.periodtables.rotation.TestSetup;
import io.periodtables.rotation.lifecycle.ManagedTable;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.Tag;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

class TableManagerITCase {
    private static final Instant NOW = Instant.parse("2030-03-10T12:30:00Z");
    private static Dynalite local;
    /** One client for all managers here: building and closing a Netty client per test costs seconds. */
    private static DynamoDbAsyncClient client;

    @BeforeAll
    static void startDynamoDbLocal() {
        local = TestSetup.dynamoDb();
        client = TestSetup.clients(TestSetup.config(local.endpoint()), CallLog.class)
                .newAsyncClient(8);
    }

    @AfterAll
    static void stopDynamoDbLocal() {
        client.close();
    }

    @BeforeEach
    void forgetCalls() {
        CallLog.reset();
    }

    private static TableManager manager(PeriodTablesConfig config) {
        return new TableManager(config, client, TestSetup.fastSettings(), Clock.systemUTC());
    }

    private static PeriodTablesConfig hourly(String... more) {
        String[] base = {
            "tables.prefix",
            TestSetup.uniquePrefix("tm"),
            "tables.period",
            "PT1H",
            "tables.ttl",
            "P30D",
            "tables.shards",
            "4"
        };
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return TestSetup.config(local.endpoint(), all);
    }

    @Test
    void anOnDemandPeriodTableGetsTheConfiguredCeilingAndTheLateTableNone() {
        PeriodTablesConfig config = hourly(
                "tables.billing",
                "PAY_PER_REQUEST",
                "tables.capacity.current",
                "on-demand",
                "tables.on-demand.max",
                "100/200");
        try (TableManager manager = manager(config)) {
            Period period = config.calendar().periodOf(NOW);
            manager.ensure(period).join();
            var ceiling = TestSetup.describe(local, config.naming().periodTable(period))
                    .onDemandThroughput();
            assertThat(ceiling.maxWriteRequestUnits()).isEqualTo(100L);
            assertThat(ceiling.maxReadRequestUnits()).isEqualTo(200L);
            manager.ensureTable(config.naming().lateTable(NOW)).join();
            assertThat(TestSetup.describe(local, config.naming().lateTable(NOW)).onDemandThroughput())
                    .as("late and rejected tables take what comes")
                    .isNull();
        }
    }

    @Test
    void ensureCreatesTheTableWithKeySchemaCurrentCapacityTagsAndTtl() {
        PeriodTablesConfig config = hourly();
        Period period = config.calendar().periodOf(NOW);
        String name = config.naming().periodTable(period);
        try (TableManager manager = manager(config)) {
            ManagedTable ensured = manager.ensure(period).join();

            assertThat(ensured.created()).isTrue();
            assertThat(ensured.name()).isEqualTo(name);
            TableDescription table = TestSetup.describe(local, name);
            assertThat(table.keySchema())
                    .containsExactly(
                            KeySchemaElement.builder()
                                    .attributeName("pk")
                                    .keyType(KeyType.HASH)
                                    .build(),
                            KeySchemaElement.builder()
                                    .attributeName("sk")
                                    .keyType(KeyType.RANGE)
                                    .build());
            assertThat(table.attributeDefinitions())
                    .allSatisfy(a -> assertThat(a.attributeType()).isEqualTo(ScalarAttributeType.S));
            assertThat(ManagedTable.capacityOf(table)).isEqualTo(Capacity.provisioned(1000, 300));
            assertThat(table.deletionProtectionEnabled()).isFalse();
            assertThat(ttlStatus(name)).isEqualTo(TimeToLiveStatus.ENABLED);
            assertThat(tagsReadBack(table.tableArn()))
                    .contains(
                            TableNaming.MANAGED_BY_TAG + "=" + TableNaming.MANAGED_BY_VALUE,
                            TableManager.TAG_PERIOD_START + "=2030-03-10T12:00:00Z",
                            TableManager.TAG_PERIOD_END + "=2030-03-10T13:00:00Z",
                            TableNaming.SHARDS_TAG + "=4",
                            TableManager.TAG_KIND + "=period");
            assertThat(CallLog.tablesOf("CreateTable")).containsExactly(name);
        }
    }

    @Test
    void ensureOfAnExistingTableSucceedsWithoutChangingIt() {
        PeriodTablesConfig config = hourly("tables.deletion-protection", "true");
        Period period = config.calendar().periodOf(NOW);
        try (TableManager manager = manager(config)) {
            manager.ensure(period).join();
            // TTL is already on now: DynamoDB answers "TimeToLive is already enabled", which is success.
            ManagedTable again = manager.ensure(period).join();

            assertThat(again.created()).isFalse();
            assertThat(again.capacity()).isEqualTo(Capacity.provisioned(1000, 300));
            assertThat(again.deletionProtected()).isTrue();
            assertThat(CallLog.tablesOf("UpdateTable")).isEmpty();
        }
    }

    @Test
    void concurrentEnsuresOfOneTableShareOneOperation() {
        PeriodTablesConfig config = hourly();
        Period period = config.calendar().periodOf(NOW);
        try (TableManager manager = manager(config)) {
            CompletableFuture<ManagedTable> first = manager.ensure(period);
            CompletableFuture<ManagedTable> second =
                    manager.ensureTable(config.naming().periodTable(period));

            assertThat(first.join().created()).isTrue();
            assertThat(second.join().created()).isTrue();
            assertThat(CallLog.tablesOf("CreateTable")).hasSize(1);
        }
    }

    @Test
    void aTableOfTheSameNameWithAnotherKeySchemaIsAFatalError() {
        PeriodTablesConfig config = hourly();
        Period period = config.calendar().periodOf(NOW);
        String name = config.naming().periodTable(period);
        try (DynamoDbClient client = local.syncClient()) {
            client.createTable(b -> b.tableName(name)
                    .keySchema(KeySchemaElement.builder()
                            .attributeName("id")
                            .keyType(KeyType.HASH)
                            .build())
                    .attributeDefinitions(a -> a.attributeName("id").attributeType(ScalarAttributeType.N))
                    .billingMode(BillingMode.PAY_PER_REQUEST));
        }
        try (TableManager manager = manager(config)) {
            assertThatThrownBy(() -> manager.ensure(period).join())
                    .isInstanceOf(CompletionException.class)
                    .cause()
                    .isInstanceOf(TableSchemaMismatchException.class)
                    .hasMessageContaining("'" + name + "'")
                    .hasMessageContaining("id (N, HASH)")
                    .hasMessageContaining("pk (S, HASH) and sk (S, RANGE)");
            assertThat(CallLog.tablesOf("CreateTable")).as("not retried").hasSize(1);
        }
    }

    @Test
    void setTierReachesPreviousThenOlderCapacityAndSkipsASameValueUpdate() {
        PeriodTablesConfig config = hourly();
        Period period = config.calendar().periodOf(NOW);
        String name = config.naming().periodTable(period);
        try (TableManager manager = manager(config)) {
            manager.ensure(period).join();

            ManagedTable previous =
                    manager.setTier(name, CapacityTier.PREVIOUS).join().orElseThrow();
            assertThat(previous.capacity()).isEqualTo(Capacity.provisioned(1, 100));
            assertThat(ManagedTable.capacityOf(TestSetup.describe(local, name)))
                    .isEqualTo(Capacity.provisioned(1, 100));

            manager.setTier(name, CapacityTier.PREVIOUS).join();
            assertThat(CallLog.tablesOf("UpdateTable")).hasSize(1);

            manager.setTier(name, CapacityTier.OLDER).join();
            assertThat(ManagedTable.capacityOf(TestSetup.describe(local, name))).isEqualTo(Capacity.provisioned(1, 1));
            assertThat(CallLog.tablesOf("UpdateTable")).hasSize(2);
            assertThat(manager.tierOf(manager.describe(name).join().orElseThrow()))
                    .contains(CapacityTier.OLDER);
        }
    }

    @Test
    void aThrottledTableBelowTheCurrentTierIsRaisedBackAndOthersAreLeftAlone() {
        PeriodTablesConfig config = hourly();
        Period period = config.calendar().periodOf(NOW);
        String closed = config.naming().periodTable(period);
        String open = config.naming().periodTable(config.calendar().next(period));
        try (TableManager manager = manager(config)) {
            manager.ensure(period).join();
            manager.ensure(config.calendar().next(period)).join();
            manager.setTier(closed, CapacityTier.OLDER).join();
            CallLog.reset();

            assertThat(manager.raiseToOpenTier(closed).join())
                    .map(ManagedTable::capacity)
                    .contains(Capacity.provisioned(1, 1));
            assertThat(manager.raiseToOpenTier(open).join())
                    .as("already at the current tier")
                    .isEmpty();
            assertThat(manager.raiseToOpenTier(config.naming().rejectedTable()).join())
                    .as("missing")
                    .isEmpty();

            assertThat(ManagedTable.capacityOf(TestSetup.describe(local, closed)))
                    .isEqualTo(Capacity.provisioned(1000, 300));
            assertThat(CallLog.tablesOf("UpdateTable")).containsExactly(closed);
        }
    }

    @Test
    void anOnDemandTierSwitchesTheBillingMode() {
        PeriodTablesConfig config = hourly("tables.capacity.older", "on-demand");
        Period period = config.calendar().periodOf(NOW);
        String name = config.naming().periodTable(period);
        try (TableManager manager = manager(config)) {
            manager.ensure(period).join();

            manager.setTier(name, CapacityTier.OLDER).join();
            assertThat(ManagedTable.capacityOf(TestSetup.describe(local, name))).isEqualTo(Capacity.ON_DEMAND);
            manager.setTier(name, CapacityTier.OLDER).join();
            assertThat(CallLog.tablesOf("UpdateTable"))
                    .as("a same-tier request sends nothing")
                    .hasSize(1);
            manager.setTier(name, CapacityTier.PREVIOUS).join();
            assertThat(ManagedTable.capacityOf(TestSetup.describe(local, name)))
                    .isEqualTo(Capacity.provisioned(1, 100));
        }
    }

    @Test
    void onDemandBillingCreatesOnDemandTablesThatNeverChange() {
        PeriodTablesConfig config = hourly("tables.billing", "PAY_PER_REQUEST");
        Period period = config.calendar().periodOf(NOW);
        String name = config.naming().periodTable(period);
        try (TableManager manager = manager(config)) {
            manager.ensure(period).join();

            assertThat(ManagedTable.capacityOf(TestSetup.describe(local, name))).isEqualTo(Capacity.ON_DEMAND);
            assertThat(manager.setTier(name, CapacityTier.OLDER).join())
                    .map(ManagedTable::capacity)
                    .contains(Capacity.ON_DEMAND);
            assertThat(CallLog.tablesOf("UpdateTable")).isEmpty();
        }
    }

    @Test
    void setTierOfAMissingTableReportsIt() {
        PeriodTablesConfig config = hourly();
        try (TableManager manager = manager(config)) {
            assertThat(manager.setTier(config.naming().prefix() + "_2030-01-01T0000", CapacityTier.PREVIOUS)
                            .join())
                    .isEmpty();
        }
    }

    @Test
    void lateAndRejectedTablesAreOnDemandAndEnsuredByName() {
        PeriodTablesConfig config = hourly();
        TableNaming naming = config.naming();
        try (TableManager manager = manager(config)) {
            ManagedTable late = manager.ensureTable(naming.lateTable(NOW)).join();
            ManagedTable rejected = manager.ensureRejectedTable().join();

            assertThat(late.name()).isEqualTo(naming.prefix() + "_late_2030-03");
            assertThat(late.capacity()).isEqualTo(Capacity.ON_DEMAND);
            assertThat(ttlStatus(late.name())).isEqualTo(TimeToLiveStatus.ENABLED);
            assertThat(tagsReadBack(client.describeTable(b -> b.tableName(late.name()))
                            .join()
                            .table()
                            .tableArn()))
                    .contains(TableManager.TAG_LATE_MONTH + "=2030-03");
            assertThat(rejected.capacity()).isEqualTo(Capacity.ON_DEMAND);
            assertThat(ttlStatus(rejected.name())).isEqualTo(TimeToLiveStatus.DISABLED);
            assertThatThrownBy(() -> manager.ensureTable("someone_elses_table").join())
                    .cause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("someone_elses_table");
        }
    }

    private static TimeToLiveStatus ttlStatus(String table) {
        try (DynamoDbClient client = local.syncClient()) {
            return client.describeTimeToLive(b -> b.tableName(table))
                    .timeToLiveDescription()
                    .timeToLiveStatus();
        }
    }

    private static List<String> tagsReadBack(String arn) {
        return client.listTagsOfResource(b -> b.resourceArn(arn)).join().tags().stream()
                .map((Tag t) -> t.key() + "=" + t.value())
                .toList();
    }
}
