package io.periodtables.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.InternalServerErrorException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/** Write-path faults of {@link DynamoDbFaults}, checked against the items really in dynalite. */
class DynamoDbFaultsITCase {
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
    void freshTableAndScript() {
        DynamoDbFaults.reset();
        table = "faults" + (++tables);
        DynaliteITCase.createTable(plain, table);
    }

    @Test
    void everySecondBatchWriteIsThrottledAndNotWritten() {
        DynamoDbFaults.on("BatchWriteItem").every(2).throttle();

        sync.batchWriteItem(batch("a1"));
        Throwable second = catchThrowable(() -> sync.batchWriteItem(batch("a2")));
        async.batchWriteItem(batch("a3")).join();
        Throwable fourth =
                unwrap(catchThrowable(() -> async.batchWriteItem(batch("a4")).join()));

        for (Throwable throttled : List.of(second, fourth)) {
            assertThat(throttled).isInstanceOf(ProvisionedThroughputExceededException.class);
            ProvisionedThroughputExceededException e = (ProvisionedThroughputExceededException) throttled;
            assertThat(e.statusCode()).isEqualTo(400);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ProvisionedThroughputExceededException");
            assertThat(e.isThrottlingException()).isTrue();
        }
        assertThat(keysIn(table)).containsExactlyInAnyOrder("a1", "a3");
        assertThat(DynamoDbFaults.count("BatchWriteItem")).isEqualTo(4);
        assertThat(DynamoDbFaults.injected("BatchWriteItem", FaultKind.PROVISIONED_THROUGHPUT_EXCEEDED))
                .isEqualTo(2);
    }

    @Test
    void throttlingExceptionIsAThrottlingDynamoDbError() {
        DynamoDbFaults.on("PutItem").once().throttling();

        Throwable thrown =
                catchThrowable(() -> sync.putItem(b -> b.tableName(table).item(item("p1"))));

        assertThat(thrown).isInstanceOf(DynamoDbException.class);
        DynamoDbException e = (DynamoDbException) thrown;
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ThrottlingException");
        assertThat(e.isThrottlingException()).isTrue();
        assertThat(keysIn(table)).isEmpty();
    }

    @Test
    void unprocessedItemsAreReallyNotWritten() {
        DynamoDbFaults.on("BatchWriteItem").once().unprocessed(0.5);

        BatchWriteItemResponse response =
                async.batchWriteItem(batch("u1", "u2", "u3", "u4")).join();

        Set<String> unprocessed = response.unprocessedItems().get(table).stream()
                .map(w -> w.putRequest().item().get("pk").s())
                .collect(Collectors.toSet());
        assertThat(unprocessed).containsExactlyInAnyOrder("u3", "u4");
        assertThat(keysIn(table)).containsExactlyInAnyOrder("u1", "u2");
        assertThat(DynamoDbFaults.injected(FaultKind.UNPROCESSED_ITEMS)).isEqualTo(1);
    }

    @Test
    void aBatchCanComeBackEntirelyUnprocessed() {
        DynamoDbFaults.on("BatchWriteItem").always().unprocessed(1.0);

        BatchWriteItemResponse response = sync.batchWriteItem(batch("w1", "w2", "w3"));

        assertThat(response.unprocessedItems().get(table)).hasSize(3);
        assertThat(keysIn(table)).isEmpty();
    }

    @Test
    void serverErrorsCarryTheirStatusAndWriteNothing() {
        DynamoDbFaults.on("BatchWriteItem").first(1).internalServerError();
        DynamoDbFaults.on("BatchWriteItem").every(2).serviceUnavailable();

        Throwable first =
                unwrap(catchThrowable(() -> async.batchWriteItem(batch("s1")).join()));
        Throwable second = catchThrowable(() -> sync.batchWriteItem(batch("s2")));

        assertThat(first).isInstanceOf(InternalServerErrorException.class);
        assertThat(((DynamoDbException) first).statusCode()).isEqualTo(500);
        assertThat(second).isInstanceOf(DynamoDbException.class);
        assertThat(((DynamoDbException) second).statusCode()).isEqualTo(503);
        assertThat(keysIn(table)).isEmpty();
    }

    @Test
    void aDelayedWriteTimesOutButLandsLater() {
        Duration timeout = Duration.ofMillis(300);
        DynamoDbFaults.on("BatchWriteItem").once().delay(timeout.multipliedBy(3));

        Throwable thrown = unwrap(catchThrowable(() -> async.batchWriteItem(batch("d1").toBuilder()
                        .overrideConfiguration(o -> o.apiCallAttemptTimeout(timeout))
                        .build())
                .join()));

        assertThat(thrown).isInstanceOf(ApiCallAttemptTimeoutException.class);
        Polling.until(() -> keysIn(table).contains("d1"), "delayed write of d1 to land");
    }

    @Test
    void aResetConnectionFailsTheCallWithAnIoCause() {
        DynamoDbFaults.on("BatchWriteItem").always().limit(2).connectionReset();

        Throwable viaSync = catchThrowable(() -> sync.batchWriteItem(batch("r1")));
        Throwable viaAsync =
                unwrap(catchThrowable(() -> async.batchWriteItem(batch("r2")).join()));
        sync.batchWriteItem(batch("r3"));

        for (Throwable reset : List.of(viaSync, viaAsync)) {
            assertThat(reset).isInstanceOf(SdkClientException.class).hasRootCauseInstanceOf(IOException.class);
        }
        assertThat(keysIn(table)).containsExactly("r3");
        assertThat(DynamoDbFaults.injected(FaultKind.CONNECTION_RESET)).isEqualTo(2);
    }

    @Test
    void aRuleForOneTableLeavesOtherTablesAlone() {
        String other = table + "x";
        DynaliteITCase.createTable(plain, other);
        DynamoDbFaults.on("BatchWriteItem").table(other).always().throttle();

        sync.batchWriteItem(batch("t1"));
        assertThatThrownBy(() -> sync.batchWriteItem(BatchWriteItemRequest.builder()
                        .requestItems(Map.of(other, List.of(put("t2"))))
                        .build()))
                .isInstanceOf(ProvisionedThroughputExceededException.class);

        assertThat(keysIn(table)).containsExactly("t1");
        assertThat(DynamoDbFaults.requests())
                .extracting(SeenRequest::tables, r -> r.fault().isPresent())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(List.of(table), false),
                        org.assertj.core.groups.Tuple.tuple(List.of(other), true));
    }

    /**
     * The request log says how each call was answered: with success, with DynamoDB's error, with an
     * injected one, or not at all (a timeout: the call may or may not have taken effect).
     */
    @Test
    void theRequestLogSaysHowEachCallWasAnswered() {
        Duration timeout = Duration.ofMillis(300);
        DynamoDbFaults.on("DescribeTable").table(table).once().delay(timeout.multipliedBy(3));
        catchThrowable(() -> async.describeTable(
                        b -> b.tableName(table).overrideConfiguration(o -> o.apiCallAttemptTimeout(timeout)))
                .join());
        sync.batchWriteItem(batch("o1"));
        catchThrowable(() -> sync.describeTable(b -> b.tableName(table + "-missing")));
        DynamoDbFaults.on("BatchWriteItem").once().throttle();
        catchThrowable(() -> sync.batchWriteItem(batch("o2")));

        assertThat(DynamoDbFaults.requests())
                .extracting(r -> r.operation() + " " + r.outcome().replaceAll(":.*", ":"))
                .containsExactly(
                        "DescribeTable no answer:",
                        "BatchWriteItem OK",
                        "DescribeTable ResourceNotFoundException:",
                        "BatchWriteItem ProvisionedThroughputExceededException:");
        assertThat(DynamoDbFaults.requests())
                .extracting(SeenRequest::accepted, SeenRequest::unanswered)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(false, true),
                        org.assertj.core.groups.Tuple.tuple(true, false),
                        org.assertj.core.groups.Tuple.tuple(false, false),
                        org.assertj.core.groups.Tuple.tuple(false, false));
    }

    private BatchWriteItemRequest batch(String... keys) {
        return BatchWriteItemRequest.builder()
                .requestItems(Map.of(
                        table,
                        IntStream.range(0, keys.length)
                                .mapToObj(i -> put(keys[i]))
                                .toList()))
                .build();
    }

    private static WriteRequest put(String key) {
        return WriteRequest.builder()
                .putRequest(PutRequest.builder().item(item(key)).build())
                .build();
    }

    private static Map<String, AttributeValue> item(String key) {
        return DynaliteITCase.item(key, "1");
    }

    private static Set<String> keysIn(String tableName) {
        return plain.scan(b -> b.tableName(tableName).consistentRead(true)).items().stream()
                .map(i -> i.get("pk").s())
                .collect(Collectors.toSet());
    }

    private static Throwable unwrap(Throwable thrown) {
        return thrown instanceof CompletionException && thrown.getCause() != null ? thrown.getCause() : thrown;
    }
}
