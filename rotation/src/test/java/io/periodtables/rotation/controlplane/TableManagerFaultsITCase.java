package io.periodtables.rotation.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.capacity.CapacityTier;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.emulators.FaultKind;
import io.periodtables.emulators.SeenRequest;
import io.periodtables.rotation.TestSetup;
import io.periodtables.rotation.lifecycle.DecreaseQuota;
import io.periodtables.rotation.lifecycle.ManagedTable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/**
 * The table manager against what dynalite never does by itself, injected with
 * {@link DynamoDbFaults}: tables that take seconds to become ACTIVE, the capacity-decrease
 * quota, too many concurrent table operations, server errors, busy tables.
 */
class TableManagerFaultsITCase {
    private static final Instant NOW = Instant.parse("2030-03-10T12:30:00Z");
    private static Dynalite local;
    private static DynamoDbAsyncClient client;

    @BeforeAll
    static void startDynamoDbLocal() {
        local = TestSetup.dynamoDb();
        client = TestSetup.clients(TestSetup.config(local.endpoint()), DynamoDbFaults.class)
                .newAsyncClient(8);
    }

    @AfterAll
    static void stopDynamoDbLocal() {
        client.close();
    }

    @BeforeEach
    void resetFaults() {
        DynamoDbFaults.reset();
    }

    private static PeriodTablesConfig config(String... more) {
        String[] base = {"tables.prefix", TestSetup.uniquePrefix("tf"), "tables.period", "PT1H", "tables.ttl", "P30D"};
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return TestSetup.config(local.endpoint(), all);
    }

    private static TableManager manager(PeriodTablesConfig config) {
        return new TableManager(config, client, TestSetup.fastSettings(), Clock.systemUTC());
    }

    @Test
    void ensureWaitsWhileTheTableIsCreatingForSeconds() {
        PeriodTablesConfig config = config();
        Period period = config.calendar().periodOf(NOW);
        String name = config.naming().periodTable(period);
        DynamoDbFaults.holdCreating(name, Duration.ofSeconds(2));
        try (TableManager manager = manager(config)) {
            ManagedTable ensured = manager.ensure(period).join();

            assertThat(ensured.created()).isTrue();
            assertThat(ensured.status()).isEqualTo("ACTIVE");
            assertThat(DynamoDbFaults.injected("DescribeTable", FaultKind.TABLE_CREATING))
                    .as("ensure polled while the table was CREATING")
                    .isPositive();
            assertThat(ttlStatus(name)).isEqualTo(TimeToLiveStatus.ENABLED);
        }
    }

    /**
     * A lowering whose UpdateTable gets no answer (a timeout, while DynamoDB applies it later) is
     * sent again after a fresh DescribeTable: two calls for one change, one of them accepted, and
     * the table lowered once. A count of table actions counts the accepted calls
     * (SavepointRedeployITCase: three UpdateTable calls for a table lowered twice).
     */
    @Test
    void aLoweringWhoseCallGotNoAnswerIsSentAgainAndTakesEffectOnce() {
        PeriodTablesConfig config = config("sink.request-timeout", "PT1S");
        Period period = config.calendar().periodOf(NOW);
        String name = config.naming().periodTable(period);
        Capacity previous = config.effectiveCapacity(CapacityTier.PREVIOUS);
        try (DynamoDbAsyncClient timingOut =
                        TestSetup.clients(config, DynamoDbFaults.class).newAsyncClient(2);
                TableManager manager =
                        new TableManager(config, timingOut, TestSetup.fastSettings(), Clock.systemUTC())) {
            manager.ensure(period).join();
            // answered after the client's one second, then applied
            DynamoDbFaults.on("UpdateTable").table(name).once().delay(Duration.ofSeconds(3));

            ManagedTable lowered = manager.setCapacity(name, previous).join().orElseThrow();

            assertThat(lowered.capacity()).isEqualTo(previous);
            assertThat(DynamoDbFaults.requests().stream()
                            .filter(r -> r.operation().equals("UpdateTable")))
                    .extracting(SeenRequest::unanswered, SeenRequest::accepted)
                    .containsExactly(tuple(true, false), tuple(false, true));
        }
    }

    @Test
    void limitExceededOnCreateIsRetriedWithBackoff() {
        PeriodTablesConfig config = config();
        Period period = config.calendar().periodOf(NOW);
        DynamoDbFaults.on("CreateTable").first(2).limitExceeded();
        try (TableManager manager = manager(config)) {
            ManagedTable ensured = manager.ensure(period).join();

            assertThat(ensured.created()).isTrue();
            assertThat(DynamoDbFaults.count("CreateTable")).isEqualTo(3);
        }
    }

    @Test
    void serverErrorsWhileWaitingForActiveAreRiddenOut() {
        PeriodTablesConfig config = config();
        Period period = config.calendar().periodOf(NOW);
        DynamoDbFaults.on("DescribeTable").first(2).internalServerError();
        try (TableManager manager = manager(config)) {
            ManagedTable ensured = manager.ensure(period).join();

            assertThat(ensured.created()).isTrue();
            assertThat(DynamoDbFaults.injected("DescribeTable", FaultKind.INTERNAL_SERVER_ERROR))
                    .isEqualTo(2);
            assertThat(ensured.status()).isEqualTo("ACTIVE");
        }
    }

    @Test
    void ttlAlreadyEnabledCountsAsSuccess() {
        PeriodTablesConfig config = config();
        Period period = config.calendar().periodOf(NOW);
        DynamoDbFaults.on("UpdateTimeToLive").once().ttlAlreadyEnabled();
        try (TableManager manager = manager(config)) {
            assertThat(manager.ensure(period).join().created()).isTrue();

            assertThat(DynamoDbFaults.injected("UpdateTimeToLive", FaultKind.TTL_ALREADY_ENABLED))
                    .isEqualTo(1);
            assertThat(DynamoDbFaults.count("UpdateTimeToLive"))
                    .as("not retried")
                    .isEqualTo(1);
        }
    }

    @Test
    void aCapacityDecreaseRefusedForTheQuotaSaysWhenToTryAgainAndIsNotRetried() {
        PeriodTablesConfig config = config();
        Period period = config.calendar().periodOf(NOW);
        String name = config.naming().periodTable(period);
        try (TableManager manager = manager(config)) {
            manager.ensure(period).join();
            DynamoDbFaults.on("UpdateTable").table(name).once().limitExceeded();

            assertThatThrownBy(
                            () -> manager.setTier(name, CapacityTier.PREVIOUS).join())
                    .cause()
                    .isInstanceOf(DecreaseQuota.Refused.class)
                    .satisfies(e ->
                            assertThat(((DecreaseQuota.Refused) e).waitFor()).isPositive());
            assertThat(DynamoDbFaults.count("UpdateTable")).isEqualTo(1);

            assertThat(manager.setTier(name, CapacityTier.PREVIOUS).join())
                    .map(ManagedTable::capacity)
                    .contains(Capacity.provisioned(1, 100));
        }
    }

    @Test
    void aTierChangeWaitsForATableThatIsStillBusy() {
        PeriodTablesConfig config = config();
        Period period = config.calendar().periodOf(NOW);
        String name = config.naming().periodTable(period);
        try (TableManager manager = manager(config)) {
            manager.ensure(period).join();
            DynamoDbFaults.holdCreating(name, Duration.ofMillis(800));

            manager.setTier(name, CapacityTier.OLDER).join();

            assertThat(DynamoDbFaults.injected("DescribeTable", FaultKind.TABLE_CREATING))
                    .isPositive();
            assertThat(DynamoDbFaults.count("UpdateTable")).isEqualTo(1);
            assertThat(ManagedTable.capacityOf(TestSetup.describe(local, name))).isEqualTo(Capacity.provisioned(1, 1));
        }
    }

    @Test
    void retentionTriesABusyTableAgain() {
        PeriodTablesConfig config = config("tables.retention", "PT6H");
        Period expired = config.calendar().periodOf(NOW.minusSeconds(10 * 3600));
        String name = config.naming().periodTable(expired);
        try (TableManager manager = manager(config)) {
            manager.ensure(expired).join();
            DynamoDbFaults.on("DeleteTable").table(name).once().resourceInUse();

            assertThat(manager.delete(name).join()).isEqualTo(TableManager.Deletion.DELETED);

            assertThat(DynamoDbFaults.count("DeleteTable")).isEqualTo(2);
            TestSetup.awaitGone(local, name); // DynamoDB lists a deleted table while DELETING
            assertThat(TestSetup.tableNames(local, config.naming().prefix())).isEmpty();
        }
    }

    private static TimeToLiveStatus ttlStatus(String table) {
        return client.describeTimeToLive(b -> b.tableName(table))
                .join()
                .timeToLiveDescription()
                .timeToLiveStatus();
    }
}
