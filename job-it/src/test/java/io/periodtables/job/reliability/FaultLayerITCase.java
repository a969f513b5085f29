package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.emulators.FaultKind;
import java.time.Duration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The job under DynamoDB faults injected by {@link DynamoDbFaults} on top of dynalite, on
 * the MiniCluster with the {@link Fleet} input: each case must end with every reading and every
 * rejection stored exactly once, every item as expected.
 */
class FaultLayerITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static Dynalite dynamoDb;

    @BeforeAll
    static void startDynamoDb() {
        dynamoDb = DYNAMODB.emulator();
    }

    @AfterAll
    static void stopDynamoDb() {}

    @BeforeEach
    void clearFaults() {
        DynamoDbFaults.reset();
    }

    private static ReliabilityRun fleet(String prefix, String... keyValues) {
        PeriodTablesConfig config = ReliabilityRun.config(dynamoDb.endpoint(), prefix, keyValues);
        return ReliabilityRun.of(config, Fleet.standard());
    }

    @Test
    void withoutFaultsEveryReadingAndRejectionIsStoredOnce() throws Exception {
        ReliabilityRun run = fleet("rel_baseline").execute();

        TableSnapshot tables = run.assertExactlyOnce(dynamoDb);
        assertThat(run.expected.lateReadings()).isEqualTo(1);
        assertThat(tables.itemsOf(ExpectedTables.LATE)).hasSize(1);
        assertThat(tables.itemsOf(run.config.naming().rejectedTable())).hasSize(8);
    }

    @Test
    void throttledBatchWritesAreRetriedUntilEveryReadingIsStoredOnce() throws Exception {
        DynamoDbFaults.on("BatchWriteItem").every(5).throttle();
        DynamoDbFaults.on("BatchWriteItem").every(7).throttling();

        ReliabilityRun run = fleet("rel_throttle").execute();

        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.PROVISIONED_THROUGHPUT_EXCEEDED))
                .isPositive();
        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.THROTTLING))
                .isPositive();
        run.assertExactlyOnce(dynamoDb);
    }

    @Test
    void throttlingOfTheRejectedTableOnlyDelaysRejectionsAndLosesNone() throws Exception {
        ReliabilityRun run = fleet("rel_slow_rejects");
        DynamoDbFaults.on("BatchWriteItem")
                .table(run.config.naming().rejectedTable())
                .every(2)
                .throttle();

        run.execute();

        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.PROVISIONED_THROUGHPUT_EXCEEDED))
                .isPositive();
        run.assertExactlyOnce(dynamoDb);
    }

    @Test
    void unprocessedItemsAreRetriedExactlyAndNoneIsLostOrDoubled() throws Exception {
        DynamoDbFaults.on("BatchWriteItem").every(3).unprocessed(0.5);

        ReliabilityRun run = fleet("rel_unprocessed").execute();

        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.UNPROCESSED_ITEMS))
                .isPositive();
        run.assertExactlyOnce(dynamoDb);
    }

    @Test
    void internalServerErrorsAreRetried() throws Exception {
        DynamoDbFaults.on("BatchWriteItem").every(3).internalServerError();

        ReliabilityRun run = fleet("rel_500").execute();

        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.INTERNAL_SERVER_ERROR))
                .isPositive();
        run.assertExactlyOnce(dynamoDb);
    }

    @Test
    void serviceUnavailableIsRetried() throws Exception {
        DynamoDbFaults.on("BatchWriteItem").every(3).serviceUnavailable();
        DynamoDbFaults.on("DescribeTable").every(4).serviceUnavailable();

        ReliabilityRun run = fleet("rel_503").execute();

        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.SERVICE_UNAVAILABLE))
                .isPositive();
        run.assertExactlyOnce(dynamoDb);
    }

    @Test
    void connectionResetsAreRetried() throws Exception {
        DynamoDbFaults.on("BatchWriteItem").every(4).connectionReset();
        DynamoDbFaults.on("CreateTable").every(3).connectionReset();

        ReliabilityRun run = fleet("rel_reset").execute();

        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.CONNECTION_RESET))
                .isPositive();
        run.assertExactlyOnce(dynamoDb);
    }

    @Test
    void writesDelayedPastTheRequestTimeoutAreRetriedAndLandOnce() throws Exception {
        // The delayed request still reaches DynamoDB after the client gave up: the retry writes the same item.
        DynamoDbFaults.on("BatchWriteItem").every(4).delay(Duration.ofMillis(1200));

        ReliabilityRun run =
                fleet("rel_timeout", "sink.request-timeout", "PT0.5S").execute();

        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.DELAY)).isPositive();
        run.assertExactlyOnce(dynamoDb);
    }

    @Test
    void tableHeldInCreatingIsWaitedForAndWrittenOnceActive() throws Exception {
        ReliabilityRun run = fleet("rel_creating");
        String nine = run.config.naming().periodTableOf(Fleet.T0.plus(Duration.ofHours(1)));
        DynamoDbFaults.holdCreating(nine, Duration.ofSeconds(2));

        run.execute();

        assertThat(DynamoDbFaults.injected("DescribeTable", FaultKind.TABLE_CREATING)
                        + DynamoDbFaults.injected("BatchWriteItem", FaultKind.RESOURCE_NOT_FOUND))
                .isPositive();
        run.assertExactlyOnce(dynamoDb);
    }

    @Test
    void limitExceededOnCreateTableIsRetried() throws Exception {
        DynamoDbFaults.on("CreateTable").first(2).limitExceeded();

        ReliabilityRun run = fleet("rel_limit_create").execute();

        assertThat(DynamoDbFaults.injected("CreateTable", FaultKind.LIMIT_EXCEEDED))
                .isEqualTo(2);
        run.assertExactlyOnce(dynamoDb);
    }

    /**
     * DynamoDB answers a capacity decrease beyond its daily quota with LimitExceededException; the
     * rotation then waits for the quota (up to the next hour), so this run is not waited out: once a
     * decrease was refused, the tables must hold every reading while the rotation still waits.
     */
    @Test
    void limitExceededOnUpdateTableDoesNotDisturbTheWrites() throws Exception {
        DynamoDbFaults.on("UpdateTable").first(2).limitExceeded();

        // The rotation lowers a closed table once the writers have written it through: wait for that
        // refused decrease (at most 30 s) before the tables are checked.
        ReliabilityRun run = fleet("rel_limit_update")
                .executeUntilStored(dynamoDb, Duration.ofSeconds(60), new TestSource.Hooks(), env -> {}, job -> {
                    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    while (DynamoDbFaults.injected("UpdateTable", FaultKind.LIMIT_EXCEEDED) == 0
                            && System.nanoTime() < deadline) {
                        Thread.sleep(100);
                    }
                });

        assertThat(run.injectedBeforeCheck("UpdateTable", FaultKind.LIMIT_EXCEEDED))
                .isPositive();
    }

    @Test
    void ttlAlreadyEnabledCountsAsEnabledAndItemsCarryTheirTtl() throws Exception {
        DynamoDbFaults.on("UpdateTimeToLive").every(2).ttlAlreadyEnabled();

        ReliabilityRun run = fleet("rel_ttl", "tables.ttl", "P1000D").execute();

        assertThat(DynamoDbFaults.injected("UpdateTimeToLive", FaultKind.TTL_ALREADY_ENABLED))
                .isPositive();
        TableSnapshot tables = run.assertExactlyOnce(dynamoDb);
        assertThat(tables.itemsOf(run.config.naming().periodTableOf(Fleet.T0)).values())
                .allSatisfy(item -> assertThat(item).containsKey("ttl"));
    }

    @Test
    void everyFaultAtOnceStillStoresEveryReadingOnce() throws Exception {
        ReliabilityRun run = fleet("rel_chaos", "sink.request-timeout", "PT0.5S", "tables.ttl", "P1000D");
        DynamoDbFaults.holdCreating(
                run.config.naming().periodTableOf(Fleet.T0.plus(Duration.ofHours(2))), Duration.ofSeconds(2));
        DynamoDbFaults.on("BatchWriteItem").every(5).throttle();
        DynamoDbFaults.on("BatchWriteItem").every(7).unprocessed(0.3);
        DynamoDbFaults.on("BatchWriteItem").every(11).internalServerError();
        DynamoDbFaults.on("BatchWriteItem").every(13).connectionReset();
        DynamoDbFaults.on("BatchWriteItem").every(17).delay(Duration.ofMillis(800));
        DynamoDbFaults.on("CreateTable").first(1).limitExceeded();
        DynamoDbFaults.on("DescribeTable").every(4).serviceUnavailable();
        DynamoDbFaults.on("UpdateTimeToLive").every(2).ttlAlreadyEnabled();

        run.execute();

        assertThat(DynamoDbFaults.requests())
                .filteredOn(request -> request.fault().isPresent())
                .hasSizeGreaterThan(5);
        run.assertExactlyOnce(dynamoDb);
    }
}
