package io.periodtables.job.input;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.Reading;
import io.periodtables.model.Rejection;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ReadingParserTest {

    private static final long NOW = Instant.parse("2026-11-22T14:00:00Z").toEpochMilli();
    private final ReadingParser parser = new ReadingParser(ConfigLoader.fromMap(Map.of("tables.shards", "4"), true));

    private ReadingParser.Result parse(String json) {
        return parser.parse(json.getBytes(StandardCharsets.UTF_8), "shard-0/42", NOW);
    }

    @Test
    void readingBecomesDeviceTimeAndCanonicalPayload() {
        ReadingParser.Result r =
                parse("{\"timestamp\":\"2026-11-22T13:45:01.123Z\",\"deviceId\":\"dev-1\",\"temp\":21.50,\"ok\":true,"
                        + "\"tags\":[\"a\",null,1],\"meta\":{\"z\":1,\"a\":null,\"b\":\"x\"},\"gone\":null}");
        assertThat(r.rejections).isEmpty();
        assertThat(r.readings)
                .containsExactly(new Reading(
                        "dev-1",
                        Instant.parse("2026-11-22T13:45:01.123Z").toEpochMilli(),
                        null,
                        "{\"meta\":{\"b\":\"x\",\"z\":1},\"ok\":true,\"tags\":[\"a\",1],\"temp\":21.5}"));
    }

    @Test
    void fieldOrderDoesNotChangeTheCanonicalPayload() {
        Reading a = parse("{\"deviceId\":\"d\",\"timestamp\":1763819101123,\"x\":1,\"y\":2}")
                .readings
                .get(0);
        Reading b = parse("{\"y\":2,\"x\":1,\"timestamp\":1763819101123,\"deviceId\":\"d\"}")
                .readings
                .get(0);
        assertThat(a).isEqualTo(b);
    }

    @Test
    void offsetsAndEpochMillisAreAccepted() {
        assertThat(parse("{\"deviceId\":\"d\",\"timestamp\":\"2026-11-22T14:45:01+01:00\"}")
                        .readings
                        .get(0)
                        .eventMillis())
                .isEqualTo(Instant.parse("2026-11-22T13:45:01Z").toEpochMilli());
        assertThat(parse("{\"deviceId\":\"d\",\"timestamp\":1763819101123}")
                        .readings
                        .get(0)
                        .eventMillis())
                .isEqualTo(1763819101123L);
    }

    @Test
    void eventIdIsKeptApartFromThePayload() {
        Reading r = parse("{\"deviceId\":\"d\",\"timestamp\":1763819101123,\"eventId\":\"e-1\",\"v\":1}")
                .readings
                .get(0);
        assertThat(r.eventId()).isEqualTo("e-1");
        assertThat(r.payloadJson()).isEqualTo("{\"v\":1}");
    }

    @Test
    void arrayRecordKeepsGoodReadingsAndRejectsBadOnes() {
        ReadingParser.Result r = parse("[{\"deviceId\":\"a\",\"timestamp\":1763819101123},"
                + "{\"timestamp\":1763819101123},42,{\"deviceId\":\"b\",\"timestamp\":1763819101124}]");
        assertThat(r.readings).extracting(Reading::deviceId).containsExactly("a", "b");
        assertThat(r.rejections).extracting(x -> x.reason().code()).containsExactly("missing-device", "not-an-object");
        assertThat(r.rejections).extracting(Rejection::origin).containsExactly("shard-0/42[1]", "shard-0/42[2]");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"deviceId\":\"d\",\"timestamp\":1763819101123 | invalid-json",
                "\"just a string\" | not-an-object",
                "[] | empty-array",
                "{\"timestamp\":1763819101123} | missing-device",
                "{\"deviceId\":\"\",\"timestamp\":1763819101123} | missing-device",
                "{\"deviceId\":7,\"timestamp\":1763819101123} | missing-device",
                "{\"deviceId\":\"d\"} | bad-timestamp",
                "{\"deviceId\":\"d\",\"timestamp\":\"yesterday\"} | bad-timestamp",
                "{\"deviceId\":\"d\",\"timestamp\":1763819101} | bad-timestamp",
                "{\"deviceId\":\"d\",\"timestamp\":true} | bad-timestamp",
                "{\"deviceId\":\"d\",\"timestamp\":\"+10000-01-01T00:00:00Z\"} | bad-timestamp",
                "{\"deviceId\":\"d\",\"timestamp\":\"2026-11-22T16:00:00Z\"} | too-far-future",
                "{\"deviceId\":\"d\",\"timestamp\":1763819101123,\"v\":1e200} | bad-number",
                "{\"deviceId\":\"d\",\"timestamp\":1763819101123,\"v\":123456789012345678901234567890123456789} | bad-number",
                "{\"deviceId\":\"d\",\"timestamp\":1763819101123,\"v\":[1e999]} | bad-number",
                "{\"deviceId\":\"d\",\"timestamp\":1763819101123,\"pk\":\"x\"} | reserved-attribute",
                "{\"deviceId\":\"d\",\"timestamp\":1763819101123,\"eventId\":5} | bad-event-id",
                "{\"deviceId\":\"d\",\"timestamp\":1763819101123,\"\":5} | bad-field-name",
            })
    void badInputBecomesARejectionWithItsReason(String json, String reason) {
        ReadingParser.Result r = parse(json);
        assertThat(r.readings).isEmpty();
        assertThat(r.rejections).singleElement().satisfies(x -> {
            assertThat(x.reason().code()).isEqualTo(reason);
            assertThat(x.message()).isNotBlank();
            assertThat(x.arrivedAtMillis()).isEqualTo(NOW);
            assertThat(x.origin()).startsWith("shard-0/42");
        });
    }

    @Test
    void instantWithoutATableInTheConfiguredZoneIsRejected() {
        ReadingParser newYork =
                new ReadingParser(ConfigLoader.fromMap(Map.of("tables.zone", "America/New_York"), true));
        ReadingParser.Result r = newYork.parse(
                "{\"deviceId\":\"d\",\"timestamp\":\"0001-01-01T00:00:00Z\"}".getBytes(StandardCharsets.UTF_8),
                "o",
                NOW);
        assertThat(r.rejections)
                .singleElement()
                .satisfies(x -> assertThat(x.reason().code()).isEqualTo("bad-timestamp"));
        assertThat(parse("{\"deviceId\":\"d\",\"timestamp\":\"0001-01-01T00:00:00Z\"}").readings)
                .hasSize(1);
    }

    @Test
    void nonUtf8BytesAreRejectedNotThrown() {
        ReadingParser.Result r = parser.parse(new byte[] {'{', (byte) 0xC3, (byte) 0x28, '}'}, "o", NOW);
        assertThat(r.rejections)
                .singleElement()
                .satisfies(x -> assertThat(x.reason().code()).isEqualTo("invalid-json"));
    }

    @Test
    void nestingDeeperThanDynamoDbAllowsIsRejected() {
        String deep = "{\"deviceId\":\"d\",\"timestamp\":1763819101123,\"v\":" + "{\"a\":".repeat(40) + "1"
                + "}".repeat(40) + "}";
        assertThat(parse(deep).rejections)
                .singleElement()
                .satisfies(x -> assertThat(x.reason().code()).isEqualTo("too-deep"));
        String ok = "{\"deviceId\":\"d\",\"timestamp\":1763819101123,\"v\":" + "{\"a\":".repeat(30) + "1"
                + "}".repeat(30) + "}";
        assertThat(parse(ok).readings).hasSize(1);
    }

    /**
     * A reading whose item DynamoDB would refuse is rejected by the parser, before the period
     * windows: the sink never refuses it after them, where rollups, latest and archive had it.
     */
    @Test
    void readingWhoseItemExceeds400KbIsRejectedBeforeTheWindows() {
        String big = "{\"deviceId\":\"dev-004\",\"timestamp\":1763819101123,\"blob\":\"" + "x".repeat(450 * 1024)
                + "\",\"temp\":21.5}";
        assertThat(parse(big).readings).isEmpty();
        assertThat(parse(big).rejections).singleElement().satisfies(x -> {
            assertThat(x.reason().code()).isEqualTo("item-too-large");
            assertThat(x.message()).matches("item of \\d+ bytes exceeds DynamoDB's limit of 409600 bytes");
        });
        String fits =
                "{\"deviceId\":\"dev-004\",\"timestamp\":1763819101123,\"blob\":\"" + "x".repeat(390 * 1024) + "\"}";
        assertThat(parse(fits).readings).hasSize(1);
    }

    @Test
    void deviceIdTooLongForTheShardedKeyIsRejected() {
        String longId = "x".repeat(2047);
        assertThat(parse("{\"deviceId\":\"" + longId + "\",\"timestamp\":1763819101123}").rejections)
                .singleElement()
                .satisfies(x -> assertThat(x.reason().code()).isEqualTo("device-too-long"));
    }

    @Test
    void deviceIdsWithSpecialCharactersAreKeptVerbatim() {
        Reading r = parse("{\"deviceId\":\"a#b/../\\\"q\\u0001\",\"timestamp\":1763819101123}")
                .readings
                .get(0);
        assertThat(r.deviceId()).isEqualTo("a#b/../\"q\u0001");
    }

    @Test
    void configuredFieldNamesAreUsed() {
        PeriodTablesConfig config =
                ConfigLoader.fromMap(Map.of("input.device-field", "sensor", "input.timestamp-field", "ts"), true);
        ReadingParser.Result r = new ReadingParser(config)
                .parse(
                        "{\"sensor\":\"s1\",\"ts\":1763819101123,\"deviceId\":\"payload\"}"
                                .getBytes(StandardCharsets.UTF_8),
                        "o",
                        NOW);
        assertThat(r.readings).singleElement().satisfies(x -> {
            assertThat(x.deviceId()).isEqualTo("s1");
            assertThat(x.payloadJson()).isEqualTo("{\"deviceId\":\"payload\"}");
        });
    }
}
