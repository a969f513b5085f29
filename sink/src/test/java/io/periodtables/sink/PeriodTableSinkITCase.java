package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.model.Reading;
import io.periodtables.model.RejectReason;
import io.periodtables.model.Rejection;
import io.periodtables.model.SinkRecord;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The sink on a MiniCluster (parallelism 2) against dynalite. */
class PeriodTableSinkITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = SinkTestBed.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    @BeforeEach
    void clearHandlerCalls() {
        CreateTableHandler.CALLS.clear();
    }

    @Test
    void readingsOfThreeHoursLandInTheirThreePeriodTablesAsExpectedItems() throws Exception {
        PeriodTablesConfig config = SinkTestBed.config(DYNAMODB.emulator());
        String prefix = config.naming().prefix();
        DynamoDbTables.create(
                DYNAMODB.client(),
                prefix + "_2026-11-22T1300",
                prefix + "_2026-11-22T1400",
                prefix + "_2026-11-22T1500",
                prefix + "_rejected");
        int n = 300;
        List<SinkRecord> records = new ArrayList<>();
        IntStream.range(0, n).forEach(i -> records.add(SinkRecord.period(TestReadings.reading(i, n))));

        SinkTestBed.run(SinkTestBed.sink(config).build(), records);

        Map<String, Map<List<String>, Map<String, AttributeValue>>> expected = TestReadings.expectedTables(config, n);
        assertThat(expected)
                .containsOnlyKeys(
                        prefix + "_2026-11-22T1300", prefix + "_2026-11-22T1400", prefix + "_2026-11-22T1500");
        expected.forEach((table, items) ->
                assertThat(DynamoDbTables.contents(DYNAMODB.client(), table)).isEqualTo(items));
        assertThat(DynamoDbTables.contents(DYNAMODB.client(), prefix + "_rejected"))
                .isEmpty();
        expected.values()
                .forEach(items ->
                        items.keySet().forEach(key -> assertThat(key.get(0)).matches("dev-[0-6]#[0-3]")));
        assertThat(CreateTableHandler.CALLS).isEmpty();
    }

    @Test
    void duplicatesCollapseAndTwoReadingsOfOneMillisecondStayTwoItems() throws Exception {
        PeriodTablesConfig config = SinkTestBed.config(DYNAMODB.emulator());
        String table = config.naming().prefix() + "_2026-11-22T1300";
        String rejected = config.naming().rejectedTable();
        DynamoDbTables.create(DYNAMODB.client(), table, rejected);
        long t = Instant.parse("2026-11-22T13:10:00.007Z").toEpochMilli();
        Reading reading = new Reading("dev-1", t, null, "{\"v\":1}");
        Reading sameMillisecondOtherValue = new Reading("dev-1", t, null, "{\"v\":2}");
        Reading firstSend = new Reading("dev-2", t, "evt-9", "{\"v\":1}");
        Reading resend = new Reading("dev-2", t, "evt-9", "{\"v\":3}");
        List<SinkRecord> records = List.of(
                SinkRecord.period(reading),
                SinkRecord.period(reading),
                SinkRecord.period(reading),
                SinkRecord.period(sameMillisecondOtherValue),
                SinkRecord.period(firstSend),
                SinkRecord.period(resend));

        SinkTestBed.run(SinkTestBed.sink(config).build(), records);

        Map<List<String>, Map<String, AttributeValue>> items = DynamoDbTables.contents(DYNAMODB.client(), table);
        assertThat(items).hasSize(3);
        assertThat(items.values())
                .extracting(item ->
                        item.get("pk").s().substring(0, 5) + "=" + item.get("v").n())
                .containsExactlyInAnyOrder("dev-1=1", "dev-1=2", "dev-2=3");
        assertThat(items.keySet())
                .extracting(key -> key.get(1))
                .allMatch(sk -> sk.startsWith("2026-11-22T13:10:00.007Z#"));
        assertThat(DynamoDbTables.contents(DYNAMODB.client(), rejected)).isEmpty();
    }

    @Test
    void lateReadingsGoToTheirWatermarksMonthTableAndRejectionsToTheRejectedTable() throws Exception {
        PeriodTablesConfig config = SinkTestBed.config(DYNAMODB.emulator());
        String prefix = config.naming().prefix();
        Clock december = Clock.fixed(Instant.parse("2026-12-01T00:30:00Z"), ZoneOffset.UTC);
        Reading late = TestReadings.reading(1, 3);
        Rejection rejection =
                Rejection.of(RejectReason.INVALID_JSON, "Unexpected character ('x')", "x{", 1_000L, "shard-0/17");

        SinkTestBed.run(
                SinkTestBed.sink(config)
                        .clock(december)
                        .missingTableHandler(CreateTableHandler.factory())
                        .build(),
                List.of(
                        SinkRecord.late(
                                late, Instant.parse("2026-12-01T00:10:00Z").toEpochMilli()),
                        SinkRecord.rejected(rejection)));

        assertThat(DynamoDbTables.contents(DYNAMODB.client(), prefix + "_late_2026-12")
                        .values())
                .containsExactly(TestReadings.expectedItem(config, 1, 3));
        assertThat(DynamoDbTables.contents(DYNAMODB.client(), prefix + "_rejected")
                        .values())
                .singleElement()
                .satisfies(item -> {
                    assertThat(item.get("pk").s())
                            .isEqualTo("invalid-json#"
                                    + Integer.parseInt(rejection.rawHash().substring(15), 16));
                    assertThat(item.get("sk").s()).isEqualTo(rejection.rawHash());
                    assertThat(item.get("reason").s()).isEqualTo("Unexpected character ('x')");
                    assertThat(item.get("raw").s()).isEqualTo("x{");
                    assertThat(item.get("rawBytes").n()).isEqualTo("2");
                    assertThat(item.get("arrivedAt").s()).isEqualTo("1970-01-01T00:00:01Z");
                    assertThat(item.get("origin").s()).isEqualTo("shard-0/17");
                });
        assertThat(CreateTableHandler.CALLS).containsOnly(prefix + "_late_2026-12", prefix + "_rejected");
    }

    /**
     * A flood of bad input of one reason is spread over the reason's 16 partition keys
     * ({@code <reason>#<sort key mod 16>}) in DynamoDB; 2,000 rejections keep it fast
     * ({@code ItemBuilderTest} spreads 10,000 without DynamoDB).
     */
    @Test
    void rejectionsOfOneReasonSpreadOverSixteenPartitionKeys() throws Exception {
        PeriodTablesConfig config = SinkTestBed.config(DYNAMODB.emulator());
        DynamoDbTables.create(DYNAMODB.client(), config.naming().rejectedTable());
        List<SinkRecord> records = new ArrayList<>();
        IntStream.range(0, 2_000)
                .forEach(i -> records.add(SinkRecord.rejected(
                        Rejection.of(RejectReason.INVALID_JSON, "not JSON", "{bad " + i, 1_000L, "shard-0/" + i))));

        SinkTestBed.run(SinkTestBed.sink(config).build(), records);

        Map<String, Long> perKey = new java.util.TreeMap<>();
        DynamoDbTables.contents(DYNAMODB.client(), config.naming().rejectedTable())
                .forEach((key, item) -> {
                    String sk = key.get(1);
                    assertThat(key.get(0))
                            .isEqualTo("invalid-json#" + Integer.parseInt(sk.substring(sk.length() - 1), 16));
                    perKey.merge(key.get(0), 1L, Long::sum);
                });
        assertThat(perKey.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(2_000);
        assertThat(perKey)
                .hasSize(16)
                .allSatisfy((pk, items) -> assertThat(items).as(pk).isLessThan(200));
    }

    @Test
    void missingPeriodTablesAreCreatedByTheHandlerAndEverythingIsWritten() throws Exception {
        PeriodTablesConfig config = SinkTestBed.config(DYNAMODB.emulator());
        int n = 60;
        List<SinkRecord> records = new ArrayList<>();
        IntStream.range(0, n).forEach(i -> records.add(SinkRecord.period(TestReadings.reading(i, n))));

        SinkTestBed.run(
                SinkTestBed.sink(config)
                        .missingTableHandler(CreateTableHandler.factory())
                        .build(),
                records);

        Map<String, Map<List<String>, Map<String, AttributeValue>>> expected = TestReadings.expectedTables(config, n);
        expected.forEach((table, items) ->
                assertThat(DynamoDbTables.contents(DYNAMODB.client(), table)).isEqualTo(items));
        assertThat(CreateTableHandler.CALLS).containsAll(expected.keySet());
    }
}
