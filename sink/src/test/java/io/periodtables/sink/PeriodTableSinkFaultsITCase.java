package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.owner.MissingTableHandler;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.emulators.FaultKind;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The sink under injected faults ({@link DynamoDbFaults} on top of dynalite): after each,
 * the tables hold exactly the expected items.
 */
class PeriodTableSinkFaultsITCase {

    private static final int N = 200;

    @RegisterExtension
    static final MiniClusterExtension FLINK = SinkTestBed.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    @BeforeEach
    void resetFaults() {
        DynamoDbFaults.reset();
    }

    @Test
    void throttledRequestsAreRetriedUntilEverythingIsWritten() throws Exception {
        DynamoDbFaults.on("BatchWriteItem").every(3).throttle();
        DynamoDbFaults.on("BatchWriteItem").every(5).throttling();

        PeriodTablesConfig config = runReadings();

        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.PROVISIONED_THROUGHPUT_EXCEEDED))
                .isPositive();
        assertAllReadingsWritten(config);
    }

    @Test
    void unprocessedItemsAreRetriedExactly() throws Exception {
        DynamoDbFaults.on("BatchWriteItem").every(2).unprocessed(0.5);

        PeriodTablesConfig config = runReadings();

        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.UNPROCESSED_ITEMS))
                .isPositive();
        assertAllReadingsWritten(config);
    }

    @Test
    void serverErrorsAndConnectionResetsAreRetried() throws Exception {
        DynamoDbFaults.on("BatchWriteItem").every(3).internalServerError();
        DynamoDbFaults.on("BatchWriteItem").every(4).serviceUnavailable();
        DynamoDbFaults.on("BatchWriteItem").every(7).connectionReset();

        PeriodTablesConfig config = runReadings();

        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.INTERNAL_SERVER_ERROR))
                .isPositive();
        assertAllReadingsWritten(config);
    }

    @Test
    void requestsDelayedPastTheTimeoutAreRetried() throws Exception {
        DynamoDbFaults.on("BatchWriteItem").every(3).delay(Duration.ofMillis(1500));

        PeriodTablesConfig config = runReadings("sink.request-timeout", "PT0.5S");

        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.DELAY)).isPositive();
        assertAllReadingsWritten(config);
    }

    /**
     * Each eventId arrives twice, the second version 40 records after the first (two batches on),
     * with 16 requests in flight: every third request held 300 ms (its successors overtake it)
     * and every fourth answered half unprocessed (retried after newer batches went out). Every
     * item holds the later version.
     */
    @Test
    void laterVersionOfAnEventIdIsStoredWhateverTheBatchingWithSixteenRequestsInFlight() throws Exception {
        int events = 600;
        int lag = 40;
        PeriodTablesConfig config =
                SinkTestBed.config(DYNAMODB.emulator(), "sink.max-in-flight", "16", "sink.request-timeout", "PT10S");
        String table = config.naming().prefix() + "_2026-11-22T1300";
        DynamoDbTables.create(DYNAMODB.client(), table);
        DynamoDbFaults.on("BatchWriteItem").every(3).delay(Duration.ofMillis(300));
        DynamoDbFaults.on("BatchWriteItem").every(4).unprocessed(0.5);
        List<SinkRecord> records = new ArrayList<>();
        for (int i = 0; i < events + lag; i++) {
            if (i < events) {
                records.add(SinkRecord.period(version(i, 1)));
            }
            if (i >= lag) {
                records.add(SinkRecord.period(version(i - lag, 2)));
            }
        }

        SinkTestBed.run(
                SinkTestBed.sink(config)
                        .interceptors(List.of(DynamoDbFaults.class))
                        .build(),
                records);

        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.UNPROCESSED_ITEMS))
                .isPositive();
        Map<List<String>, Map<String, AttributeValue>> stored = DynamoDbTables.contents(DYNAMODB.client(), table);
        assertThat(stored).hasSize(events);
        assertThat(stored.values())
                .allSatisfy(item -> assertThat(item.get("version").n())
                        .as("event %s", item.get("e").n())
                        .isEqualTo("2"));
    }

    /** Version {@code v} of event {@code e}: same device, time and eventId (so the same item key), other payload. */
    private static Reading version(int e, int v) {
        long t = Instant.parse("2026-11-22T13:00:00Z").toEpochMilli() + e * 1000L;
        return new Reading("dev-" + e % 7, t, "evt-" + e, "{\"e\":" + e + ",\"version\":" + v + "}");
    }

    @Test
    void tableStillCreatingIsHandedToTheHandlerAndWrittenOnceActive() throws Exception {
        PeriodTablesConfig config = SinkTestBed.config(DYNAMODB.emulator());
        String table = config.naming().prefix() + "_2026-11-22T1300";
        DynamoDbTables.create(DYNAMODB.client(), table);
        DynamoDbFaults.holdCreating(table);
        List<SinkRecord> records = new ArrayList<>();
        IntStream.range(0, 30).forEach(i -> records.add(SinkRecord.period(TestReadings.reading(i, 90))));

        SinkTestBed.run(
                SinkTestBed.sink(config)
                        .interceptors(List.of(DynamoDbFaults.class))
                        .missingTableHandler(PeriodTableSinkFaultsITCase::waitingForActive)
                        .build(),
                records);

        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.RESOURCE_NOT_FOUND))
                .isPositive();
        assertThat(DynamoDbTables.contents(DYNAMODB.client(), table))
                .isEqualTo(TestReadings.expectedTables(config, 90).get(table));
    }

    /** A handler that "waits until the table is active": it ends the CREATING hold. */
    private static MissingTableHandler waitingForActive(PeriodTablesConfig config) {
        return (tableName, arrival, eventTime) -> {
            DynamoDbFaults.release(tableName);
            return CompletableFuture.completedFuture(MissingTableHandler.Verdict.created());
        };
    }

    @Test
    void oversizedAndRefusedItemsAreRejectedAndTheRestIsWritten() throws Exception {
        PeriodTablesConfig config = SinkTestBed.config(DYNAMODB.emulator());
        String table = config.naming().prefix() + "_2026-11-22T1300";
        DynamoDbTables.create(DYNAMODB.client(), table, config.naming().rejectedTable());
        long t = Instant.parse("2026-11-22T13:20:00Z").toEpochMilli();
        List<SinkRecord> records = new ArrayList<>();
        IntStream.range(0, 40)
                .forEach(i -> records.add(SinkRecord.period(new Reading("dev-" + i, t, null, "{\"v\":" + i + "}"))));
        records.add(
                20,
                SinkRecord.period(new Reading("dev-huge", t, null, "{\"blob\":\"" + "x".repeat(401 * 1024) + "\"}")));
        records.add(10, SinkRecord.period(new Reading("dev-overflow", t, null, "{\"v\":1e200}")));

        SinkTestBed.run(SinkTestBed.sink(config).build(), records);

        assertThat(DynamoDbTables.contents(DYNAMODB.client(), table).values())
                .extracting(item -> item.get("v").n())
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, 40).mapToObj(Integer::toString).toList());
        Map<String, Map<String, AttributeValue>> rejectedByReason = new java.util.HashMap<>();
        DynamoDbTables.contents(DYNAMODB.client(), config.naming().rejectedTable())
                .values()
                .forEach(item -> rejectedByReason.put(item.get("pk").s().replaceFirst("#([0-9]|1[0-5])$", ""), item));
        assertThat(rejectedByReason).containsOnlyKeys("item-too-large", "dynamodb-validation");
        assertThat(rejectedByReason.get("item-too-large").get("raw").s()).contains("\"deviceId\":\"dev-huge\"");
        assertThat(rejectedByReason.get("dynamodb-validation").get("reason").s())
                .contains("ValidationException");
        assertThat(rejectedByReason.get("dynamodb-validation").get("raw").s())
                .contains("\"pk\":\"dev-overflow#")
                .contains("\"v\":1e200");
        assertThat(rejectedByReason.get("dynamodb-validation").get("origin").s())
                .isEqualTo(table);
    }

    @Test
    void entryThatExhaustsItsAttemptsFailsTheJobNamingTheTable() {
        PeriodTablesConfig config = SinkTestBed.config(DYNAMODB.emulator(), "sink.max-attempts", "3");
        Reading reading = TestReadings.reading(0, 1);

        assertThatThrownBy(() -> SinkTestBed.run(SinkTestBed.sink(config).build(), List.of(SinkRecord.period(reading))))
                .satisfies(error -> assertThat(ExceptionUtils.findThrowable(error, PeriodTableSinkException.class))
                        .hasValueSatisfying(cause -> assertThat(cause.getMessage())
                                .contains("for table " + config.naming().prefix() + "_2026-11-22T1300")
                                .contains("failed 3 attempts (sink.max-attempts=3)")
                                .contains("ResourceNotFoundException")
                                .contains("no missing-table handler")));
    }

    private PeriodTablesConfig runReadings(String... keyValues) throws Exception {
        PeriodTablesConfig config = SinkTestBed.config(DYNAMODB.emulator(), keyValues);
        TestReadings.expectedTables(config, N)
                .keySet()
                .forEach(table -> DynamoDbTables.create(DYNAMODB.client(), table));
        List<SinkRecord> records = new ArrayList<>();
        IntStream.range(0, N).forEach(i -> records.add(SinkRecord.period(TestReadings.reading(i, N))));
        SinkTestBed.run(
                SinkTestBed.sink(config)
                        .interceptors(List.of(DynamoDbFaults.class))
                        .build(),
                records);
        return config;
    }

    private static void assertAllReadingsWritten(PeriodTablesConfig config) {
        Map<String, Map<List<String>, Map<String, AttributeValue>>> expected = TestReadings.expectedTables(config, N);
        assertThat(expected).hasSize(3);
        expected.forEach((table, items) ->
                assertThat(DynamoDbTables.contents(DYNAMODB.client(), table)).isEqualTo(items));
    }
}
