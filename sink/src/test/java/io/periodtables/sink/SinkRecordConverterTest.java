package io.periodtables.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.item.ItemBuilder;
import io.periodtables.core.owner.MissingTableHandler;
import io.periodtables.model.Reading;
import io.periodtables.model.RejectReason;
import io.periodtables.model.Rejection;
import io.periodtables.model.SinkRecord;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class SinkRecordConverterTest {

    private static final long T = Instant.parse("2026-11-22T13:45:01.123Z").toEpochMilli();

    private final PeriodTablesConfig config = TestConfigs.hourly4Shards("tables.ttl", "P7D");
    private final SinkRecordConverter converter = new SinkRecordConverter(
            config.naming(),
            new ItemBuilder(config.sharding(), config.ttl().orElse(null)),
            Clock.fixed(Instant.parse("2026-12-01T00:00:05Z"), ZoneOffset.UTC));

    @Test
    void aWindowResultIsOnTimeAnyOtherPeriodReadingLateAndEntriesCarryTheWatermark() {
        long windowEnd = Instant.parse("2026-11-22T14:00:00Z").toEpochMilli();
        SinkRecord record = SinkRecord.period(new Reading("dev-1", T, null, "{\"v\":1}"));

        TableWriteEntry onTime = converter.apply(record, context(windowEnd - 1, T - 60_000));
        TableWriteEntry late = converter.apply(record, context(T, windowEnd + 3_600_000));

        assertThat(onTime.origin())
                .isEqualTo(new TableWriteEntry.Origin(MissingTableHandler.Arrival.ON_TIME, T - 60_000, T - 60_000));
        assertThat(late.origin())
                .isEqualTo(new TableWriteEntry.Origin(
                        MissingTableHandler.Arrival.LATE, windowEnd + 3_600_000, windowEnd + 3_600_000));
        assertThat(converter.apply(record, null).origin().arrival()).isEqualTo(MissingTableHandler.Arrival.UNKNOWN);
    }

    private static org.apache.flink.api.connector.sink2.SinkWriter.Context context(long timestamp, long watermark) {
        return new org.apache.flink.api.connector.sink2.SinkWriter.Context() {
            @Override
            public long currentWatermark() {
                return watermark;
            }

            @Override
            public Long timestamp() {
                return timestamp;
            }
        };
    }

    @Test
    void periodReadingGoesToTheTableOfItsEventHour() {
        TableWriteEntry entry = converter.apply(SinkRecord.period(new Reading("dev-1", T, null, "{\"v\":1}")), null);

        assertThat(entry.table()).isEqualTo("readings_2026-11-22T1300");
        assertThat(entry.pk()).matches("dev-1#[0-3]");
        assertThat(entry.item()).containsOnlyKeys("pk", "sk", "v", "ttl");
        assertThat(entry.sizeBytes()).isEqualTo(DynamoDbItemSize.of(entry.item()));
        assertThat(entry.failedAttempts()).isZero();
    }

    @Test
    void lateReadingGoesToTheLateTableOfTheWatermarksMonthWhateverTheClock() {
        long watermark = Instant.parse("2027-01-31T23:59:59.999Z").toEpochMilli();
        TableWriteEntry entry =
                converter.apply(SinkRecord.late(new Reading("dev-1", T, null, "{\"v\":1}"), watermark), null);

        assertThat(entry.table()).isEqualTo("readings_late_2027-01");
        assertThat(entry.item())
                .isEqualTo(converter
                        .apply(SinkRecord.period(new Reading("dev-1", T, null, "{\"v\":1}")), null)
                        .item());
    }

    @Test
    void lateReadingRestoredWithoutItsWatermarkGoesToTheLateTableOfTheClocksMonth() {
        TableWriteEntry entry =
                converter.apply(SinkRecord.late(new Reading("dev-1", T, null, "{}"), SinkRecord.UNKNOWN), null);

        assertThat(entry.table()).isEqualTo("readings_late_2026-12");
    }

    @Test
    void rejectionGoesToTheRejectedTable() {
        TableWriteEntry entry = converter.apply(
                SinkRecord.rejected(Rejection.of(RejectReason.MISSING_DEVICE, "no deviceId", "{}", 0L, "shard-0/1")),
                null);
        assertThat(entry.table()).isEqualTo("readings_rejected");
        assertThat(entry.pk()).matches("missing-device#([0-9]|1[0-5])");
    }

    @Test
    void oversizedItemIsRejectedInsteadOfSent() {
        String payload = "{\"blob\":\"" + "x".repeat(410 * 1024) + "\"}";
        TableWriteEntry entry = converter.apply(SinkRecord.period(new Reading("dev-1", T, "e-9", payload)), null);

        assertThat(entry.table()).isEqualTo("readings_rejected");
        assertThat(entry.pk()).matches("item-too-large#([0-9]|1[0-5])");
        assertThat(entry.item().get("reason").s())
                .contains("exceeds DynamoDB's limit of 409600 bytes")
                .contains("readings_2026-11-22T1300");
        assertThat(entry.item().get("raw").s())
                .startsWith(
                        "{\"deviceId\":\"dev-1\",\"timestamp\":\"2026-11-22T13:45:01.123Z\",\"eventId\":\"e-9\",\"payload\":{\"blob\":\"xxx");
        assertThat(entry.item().get("raw").s()).hasSize(Rejection.MAX_RAW_BYTES);
        assertThat(Long.parseLong(entry.item().get("rawBytes").n())).isGreaterThan(410 * 1024);
        assertThat(entry.item().get("origin").s()).isEqualTo("readings_2026-11-22T1300");
        assertThat(entry.item().get("arrivedAt").s()).isEqualTo("2026-12-01T00:00:05Z");
    }

    @Test
    void itemJustUnderTheLimitIsKept() {
        PeriodTablesConfig noTtl = TestConfigs.hourly4Shards();
        SinkRecordConverter plain =
                new SinkRecordConverter(noTtl.naming(), new ItemBuilder(noTtl.sharding(), null), Clock.systemUTC());
        Reading probe = new Reading("dev-1", T, null, "{\"blob\":\"\"}");
        long overhead = plain.apply(SinkRecord.period(probe), null).sizeBytes();
        String fits = "{\"blob\":\"" + "x".repeat((int) (DynamoDbItemSize.MAX_ITEM_BYTES - overhead)) + "\"}";

        TableWriteEntry entry = plain.apply(SinkRecord.period(new Reading("dev-1", T, null, fits)), null);

        assertThat(entry.table()).isEqualTo("readings_2026-11-22T1300");
        assertThat(entry.sizeBytes()).isEqualTo(DynamoDbItemSize.MAX_ITEM_BYTES);
    }

    @Test
    void readingsAlternatingBetweenPeriodsEachGetTheirOwnTable() {
        long nextHour = Instant.parse("2026-11-22T14:00:00Z").toEpochMilli();
        assertThat(List.of(T, nextHour - 1, nextHour, T, nextHour + 3_600_000L))
                .extracting(t -> converter
                        .apply(SinkRecord.period(new Reading("d", t, null, "{}")), null)
                        .table())
                .containsExactly(
                        "readings_2026-11-22T1300",
                        "readings_2026-11-22T1300",
                        "readings_2026-11-22T1400",
                        "readings_2026-11-22T1300",
                        "readings_2026-11-22T1500");
    }

    @Test
    void readingOutsideTheYearsOfTableNamesIsRejectedAndCounted() {
        long year10000 = Instant.parse("+10000-01-01T00:00:00Z").toEpochMilli();
        TableWriteEntry entry = converter.apply(SinkRecord.period(new Reading("dev-1", year10000, null, "{}")), null);

        assertThat(entry.table()).isEqualTo("readings_rejected");
        assertThat(entry.pk()).matches("bad-timestamp#([0-9]|1[0-5])");
        assertThat(entry.item().get("reason").s()).contains("outside the years 0001-9999");
        assertThat(converter.rejectedItems().getCount()).isEqualTo(1);
    }

    @Test
    void readingWithReservedFieldIsRejected() {
        TableWriteEntry entry = converter.apply(SinkRecord.period(new Reading("dev-1", T, null, "{\"sk\":1}")), null);
        assertThat(entry.table()).isEqualTo("readings_rejected");
        assertThat(entry.pk()).matches("reserved-attribute#([0-9]|1[0-5])");
    }
}
