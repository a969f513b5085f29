package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.item.ItemBuilder;
import io.periodtables.core.owner.MissingTableHandler;
import io.periodtables.model.RejectReason;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class BatchWriteTest {

    private static final String REJECTED = "readings_rejected";

    private final FakeDynamoDb dynamoDb = new FakeDynamoDb();
    private final List<String> ensured = new CopyOnWriteArrayList<>();
    private final SinkMetrics metrics = new SinkMetrics(new UnregisteredMetricsGroup());
    private final Clock clock = Clock.fixed(Instant.parse("2026-11-22T14:00:00Z"), ZoneOffset.UTC);
    private final SinkRecordConverter converter = new SinkRecordConverter(
            TestConfigs.hourly4Shards().naming(),
            new ItemBuilder(TestConfigs.hourly4Shards().sharding(), null),
            clock);

    private final List<String> throttled = new CopyOnWriteArrayList<>();
    private MissingTableHandler.Verdict verdict = MissingTableHandler.Verdict.created();
    private MissingTableHandler handler = new MissingTableHandler() {
        @Override
        public CompletableFuture<Verdict> ensureTable(String table, Arrival arrival, long eventTime) {
            ensured.add(table);
            if (verdict.kind() == Verdict.Kind.CREATED) {
                dynamoDb.missing.remove(table);
            }
            return CompletableFuture.completedFuture(verdict);
        }

        @Override
        public CompletableFuture<Boolean> throttled(String table) {
            throttled.add(table);
            return CompletableFuture.completedFuture(false);
        }
    };

    private BatchOutcome write(List<TableWriteEntry> entries) {
        return new BatchWrite(
                        dynamoDb,
                        handler,
                        new Reroutes(converter::lateEntry, converter::rejectionEntry, REJECTED),
                        metrics,
                        clock,
                        null)
                .write(entries)
                .join();
    }

    @Test
    void batchAcrossTablesIsWrittenInOneRequest() {
        List<TableWriteEntry> entries = entries("readings_a", 10);
        entries.addAll(entries("readings_b", 15));

        assertThat(write(entries).isDone()).isTrue();
        assertThat(dynamoDb.requestSizes).containsExactly(25);
        assertThat(dynamoDb.table("readings_a")).hasSize(10);
        assertThat(dynamoDb.table("readings_b")).hasSize(15);
        assertThat(metrics.recordsWritten()).isEqualTo(25);
    }

    @Test
    void unprocessedItemsOfEveryTableAreRetriedExactly() {
        List<TableWriteEntry> entries = entries("readings_a", 5);
        entries.addAll(entries("readings_b", 5));
        TableWriteEntry a3 = entries.get(3);
        TableWriteEntry b1 = entries.get(6);
        dynamoDb.unprocessedOnce.add(FakeDynamoDb.key(a3.table(), a3.item()));
        dynamoDb.unprocessedOnce.add(FakeDynamoDb.key(b1.table(), b1.item()));

        BatchOutcome outcome = write(entries);

        assertThat(outcome.retry).containsExactlyInAnyOrder(a3.failedOnce(), b1.failedOnce());
        assertThat(outcome.added).isEmpty();
        assertThat(dynamoDb.table("readings_a")).hasSize(4);
        assertThat(dynamoDb.table("readings_b")).hasSize(4);
        assertThat(metrics.unprocessedItemsRetried.getCount()).isEqualTo(2);
        assertThat(metrics.recordsWritten()).isEqualTo(8);
    }

    @Test
    void validationErrorIsolatesThePoisonItemAndWritesTheRest() {
        List<TableWriteEntry> entries = entries("readings_a", 25);
        entries.set(17, entry("readings_a", "dev-17", "s17", Map.of("bad", AttributeValue.fromS("x"))));

        BatchOutcome outcome = write(entries);

        assertThat(dynamoDb.table("readings_a")).hasSize(24).doesNotContainKey(List.of("readings_a", "dev-17", "s17"));
        assertThat(outcome.retry).isEmpty();
        assertThat(outcome.added).singleElement().satisfies(rejected -> {
            assertThat(rejected.table()).isEqualTo(REJECTED);
            assertThat(rejected.pk()).matches("dynamodb-validation#([0-9]|1[0-5])");
            assertThat(rejected.item().get("reason").s())
                    .contains("ValidationException")
                    .contains("readings_a");
            assertThat(rejected.item().get("raw").s()).isEqualTo("{\"bad\":\"x\",\"pk\":\"dev-17\",\"sk\":\"s17\"}");
            assertThat(rejected.item().get("origin").s()).isEqualTo("readings_a");
        });
        assertThat(metrics.bisections.getCount()).isBetween(1L, 5L);
        assertThat(metrics.rejectedItems.getCount()).isEqualTo(1);
    }

    @Test
    void twoPoisonItemsBecomeTwoRejections() {
        List<TableWriteEntry> entries = entries("readings_a", 8);
        entries.set(0, entry("readings_a", "dev-0", "s0", Map.of("bad", AttributeValue.fromN("1"))));
        entries.set(7, entry("readings_a", "dev-7", "s7", Map.of("bad", AttributeValue.fromN("7"))));

        BatchOutcome outcome = write(entries);

        assertThat(dynamoDb.table("readings_a")).hasSize(6);
        assertThat(outcome.added)
                .hasSize(2)
                .allSatisfy(e -> assertThat(e.table()).isEqualTo(REJECTED));
    }

    @Test
    void poisonItemInTheRejectedTableStopsTheJob() {
        BatchOutcome outcome =
                write(List.of(entry(REJECTED, "invalid-json", "abc", Map.of("bad", AttributeValue.fromS("x")))));
        assertThat(outcome.fatal).hasMessageContaining("rejected table readings_rejected refused item pk=invalid-json");
    }

    @Test
    void missingTableIsFoundAmongTablesAndHandedToTheHandler() {
        dynamoDb.missing.add("readings_b");
        List<TableWriteEntry> entries = entries("readings_a", 5);
        entries.addAll(entries("readings_b", 5));

        BatchOutcome outcome = write(entries);

        assertThat(ensured).containsExactly("readings_b");
        assertThat(metrics.missingTableFallbacks.getCount()).isEqualTo(1);
        assertThat(dynamoDb.table("readings_a")).hasSize(5);
        assertThat(outcome.retry).hasSize(5).allSatisfy(e -> {
            assertThat(e.table()).isEqualTo("readings_b");
            assertThat(e.failedAttempts()).isEqualTo(1);
        });
        assertThat(write(outcome.retry).isDone()).isTrue();
        assertThat(dynamoDb.table("readings_b")).hasSize(5);
    }

    @Test
    void readingsOfAMissingTableWhosePeriodClosedGoToTheLateTableOfTheWriteMonth() {
        dynamoDb.missing.add("readings_2026-11-01T1000");
        verdict = MissingTableHandler.Verdict.late("its period closed");
        List<TableWriteEntry> entries = entries("readings_2026-11-01T1000", 3);

        BatchOutcome outcome = write(entries);

        assertThat(outcome.retry).isEmpty();
        assertThat(outcome.added).hasSize(3).allSatisfy(e -> {
            assertThat(e.table()).isEqualTo("readings_late_2026-11");
            assertThat(e.failedAttempts()).isZero();
        });
        assertThat(outcome.added)
                .extracting(TableWriteEntry::item)
                .containsExactlyElementsOf(
                        entries.stream().map(TableWriteEntry::item).toList());
        assertThat(metrics.readingsRerouted.getCount()).isEqualTo(3);
        assertThat(metrics.missingTableFallbacks.getCount()).isZero();
    }

    @Test
    void readingsOfAMissingTableTooFarAheadGoToTheRejectedTableWithTheOwnersReason() {
        dynamoDb.missing.add("readings_2026-12-01T1000");
        verdict = MissingTableHandler.Verdict.rejected(RejectReason.AHEAD_OF_WATERMARK, "its period is not open yet");

        BatchOutcome outcome = write(entries("readings_2026-12-01T1000", 2));

        assertThat(outcome.added).hasSize(2).allSatisfy(e -> {
            assertThat(e.table()).isEqualTo(REJECTED);
            assertThat(e.pk()).matches("ahead-of-watermark#([0-9]|1[0-5])");
            assertThat(e.item().get("reason").s())
                    .isEqualTo("its period is not open yet (table readings_2026-12-01T1000)");
        });
    }

    @Test
    void throttledTablesAreReportedToTheOwner() {
        List<TableWriteEntry> entries = entries("readings_a", 5);
        entries.addAll(entries("readings_b", 5));
        dynamoDb.unprocessedOnce.add(
                FakeDynamoDb.key("readings_b", entries.get(7).item()));

        write(entries);

        assertThat(throttled).containsExactly("readings_b");
    }

    @Test
    void entriesOfAMissingTableAreKeptWhenTheHandlerFails() {
        dynamoDb.missing.add("readings_a");
        handler = (table, arrival, eventTime) ->
                CompletableFuture.failedFuture(new IllegalStateException("no permission to create " + table));

        BatchOutcome outcome = write(entries("readings_a", 3));

        assertThat(outcome.retry).hasSize(3);
        assertThat(outcome.lastError)
                .contains("ResourceNotFoundException")
                .contains("no permission to create readings_a");
    }

    @Test
    void throttlingAndServerErrorsRetryTheWholeBatch() {
        dynamoDb.failNext(FakeDynamoDb.error("ProvisionedThroughputExceededException", 400));
        assertThat(write(entries("readings_a", 4)).retry).hasSize(4);
        assertThat(metrics.throttledRequests.getCount()).isEqualTo(1);

        dynamoDb.failNext(FakeDynamoDb.error("InternalServerError", 500));
        assertThat(write(entries("readings_a", 4)).retry).hasSize(4);
        assertThat(metrics.failedRequests.getCount()).isEqualTo(1);
        assertThat(dynamoDb.table("readings_a")).isEmpty();
    }

    @Test
    void throttledBatchOfTwoTablesIsWrittenAgainTableByTableSoOnlyTheThrottlingTableRetries() {
        List<TableWriteEntry> entries = entries("readings_b", 5);
        entries.addAll(entries("readings_a", 5));
        dynamoDb.failNext(FakeDynamoDb.error("ProvisionedThroughputExceededException", 400));
        dynamoDb.failNext(FakeDynamoDb.error("ProvisionedThroughputExceededException", 400));

        BatchOutcome outcome = write(entries);

        assertThat(dynamoDb.requestSizes).containsExactly(10, 5, 5);
        assertThat(outcome.retry).hasSize(5).allSatisfy(e -> {
            assertThat(e.table()).isEqualTo("readings_b");
            assertThat(e.failedAttempts()).isEqualTo(1);
        });
        assertThat(dynamoDb.table("readings_a")).hasSize(5);
        assertThat(throttled).containsExactly("readings_b");
    }

    @Test
    void refusedCredentialsAreFatalWithAClearMessage() {
        dynamoDb.failNext(FakeDynamoDb.error("UnrecognizedClientException", 400));
        BatchOutcome outcome = write(entries("readings_a", 2));
        assertThat(outcome.fatal)
                .hasMessageContaining("refused the sink's credentials")
                .hasMessageContaining("UnrecognizedClientException")
                .hasMessageContaining("[readings_a]");
    }

    private static List<TableWriteEntry> entries(String table, int n) {
        List<TableWriteEntry> entries = new ArrayList<>();
        IntStream.range(0, n)
                .forEach(i ->
                        entries.add(entry(table, "dev-" + i, "s" + i, Map.of("v", AttributeValue.fromN("" + i)))));
        return entries;
    }

    private static TableWriteEntry entry(String table, String pk, String sk, Map<String, AttributeValue> payload) {
        Map<String, AttributeValue> item = new HashMap<>(payload);
        item.put("pk", AttributeValue.fromS(pk));
        item.put("sk", AttributeValue.fromS(sk));
        return new TableWriteEntry(table, item, DynamoDbItemSize.of(item), 0);
    }
}
