package io.periodtables.core.item;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.model.Reading;
import io.periodtables.model.RejectReason;
import io.periodtables.model.Rejection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class ItemBuilderTest {

    private static final long T = Instant.parse("2026-11-22T13:45:01.123Z").toEpochMilli();

    private final ItemBuilder fourShards = new ItemBuilder(new WriteSharding(4), null);

    @Test
    void everyJsonTypeBecomesItsDynamoDbType() throws Exception {
        String payload = "{\"arr\":[1,\"a\",true,null,{\"x\":2}],\"big\":12345678901234567890.50,"
                + "\"flag\":false,\"gone\":null,\"nested\":{\"deep\":{\"k\":\"v\"},\"n\":null},\"s\":\"h\\u00e9llo\",\"t\":-1.5e3}";
        Map<String, AttributeValue> item = fourShards.readingItem(new Reading("dev-1", T, null, payload));

        assertThat(item).containsOnlyKeys("pk", "sk", "arr", "big", "flag", "nested", "s", "t");
        assertThat(item.get("arr"))
                .isEqualTo(AttributeValue.fromL(List.of(
                        AttributeValue.fromN("1"),
                        AttributeValue.fromS("a"),
                        AttributeValue.fromBool(true),
                        AttributeValue.fromNul(true),
                        AttributeValue.fromM(Map.of("x", AttributeValue.fromN("2"))))));
        assertThat(item.get("big")).isEqualTo(AttributeValue.fromN("12345678901234567890.50"));
        assertThat(item.get("flag")).isEqualTo(AttributeValue.fromBool(false));
        assertThat(item.get("nested"))
                .isEqualTo(AttributeValue.fromM(
                        Map.of("deep", AttributeValue.fromM(Map.of("k", AttributeValue.fromS("v"))))));
        assertThat(item.get("s")).isEqualTo(AttributeValue.fromS("héllo"));
        assertThat(item.get("t")).isEqualTo(AttributeValue.fromN("-1.5e3"));
    }

    @Test
    void keysComeFromWriteSharding() throws Exception {
        Reading reading = new Reading("dev-1", T, null, "{\"v\":1}");
        Map<String, AttributeValue> item = fourShards.readingItem(reading);

        WriteSharding.ItemKey key = new WriteSharding(4).keyOf("dev-1", T, null, reading.canonical());
        assertThat(item.get("pk").s()).isEqualTo(key.pk());
        assertThat(item.get("sk").s()).isEqualTo(key.sk()).startsWith("2026-11-22T13:45:01.123Z#");
    }

    @Test
    void shardSuffixStaysInRangeAndUsesEveryShard() throws Exception {
        Set<String> suffixes = IntStream.range(0, 400)
                .mapToObj(i -> {
                    try {
                        return fourShards
                                .readingItem(new Reading("dev-1", T + i, null, "{\"v\":" + i + "}"))
                                .get("pk")
                                .s();
                    } catch (ItemBuilder.UnstorableReadingException e) {
                        throw new AssertionError(e);
                    }
                })
                .map(pk -> pk.substring("dev-1#".length()))
                .collect(Collectors.toSet());
        assertThat(suffixes).containsExactlyInAnyOrder("0", "1", "2", "3");
    }

    @Test
    void sameReadingSameItemAndEventIdAloneIdentifiesIt() throws Exception {
        Reading a = new Reading("dev-1", T, null, "{\"v\":1}");
        assertThat(fourShards.readingItem(a))
                .isEqualTo(fourShards.readingItem(new Reading("dev-1", T, null, "{\"v\":1}")));
        assertThat(fourShards.readingItem(a).get("sk"))
                .isNotEqualTo(fourShards
                        .readingItem(new Reading("dev-1", T, null, "{\"v\":2}"))
                        .get("sk"));

        Map<String, AttributeValue> first = fourShards.readingItem(new Reading("dev-1", T, "e-7", "{\"v\":1}"));
        Map<String, AttributeValue> resend = fourShards.readingItem(new Reading("dev-1", T, "e-7", "{\"v\":2}"));
        assertThat(resend.get("pk")).isEqualTo(first.get("pk"));
        assertThat(resend.get("sk")).isEqualTo(first.get("sk"));
        assertThat(resend.get("v")).isEqualTo(AttributeValue.fromN("2"));
    }

    @Test
    void ttlIsEventSecondPlusTtlAndNothingElseIsAdded() throws Exception {
        ItemBuilder withTtl = new ItemBuilder(new WriteSharding(1), Duration.ofDays(30));
        Map<String, AttributeValue> item = withTtl.readingItem(new Reading("dev-1", T, null, "{}"));

        assertThat(item).containsOnlyKeys("pk", "sk", "ttl");
        assertThat(item.get("pk").s()).isEqualTo("dev-1");
        assertThat(item.get("ttl").n()).isEqualTo(String.valueOf(T / 1000 + 30 * 86_400));
    }

    @Test
    void ttlOfReadingBeforeEpochRoundsDown() throws Exception {
        ItemBuilder withTtl = new ItemBuilder(new WriteSharding(1), Duration.ofSeconds(10));
        Map<String, AttributeValue> item = withTtl.readingItem(new Reading("dev-1", -1500, null, "{}"));
        assertThat(item.get("ttl").n()).isEqualTo("8");
    }

    @Test
    void payloadFieldNamedLikeAKeyAttributeIsRefused() {
        assertThatThrownBy(() -> fourShards.readingItem(new Reading("dev-1", T, null, "{\"pk\":\"x\"}")))
                .isInstanceOfSatisfying(
                        ItemBuilder.UnstorableReadingException.class,
                        e -> assertThat(e.reason()).isEqualTo(RejectReason.RESERVED_ATTRIBUTE))
                .hasMessageContaining("'pk'");
        ItemBuilder withTtl = new ItemBuilder(new WriteSharding(1), Duration.ofDays(1));
        assertThatThrownBy(() -> withTtl.readingItem(new Reading("dev-1", T, null, "{\"ttl\":5}")))
                .hasMessageContaining("'ttl'");
    }

    @Test
    void payloadThatIsNotAnObjectIsRefused() {
        assertThatThrownBy(() -> fourShards.readingItem(new Reading("dev-1", T, null, "[1]")))
                .isInstanceOfSatisfying(
                        ItemBuilder.UnstorableReadingException.class,
                        e -> assertThat(e.reason()).isEqualTo(RejectReason.INVALID_JSON));
        assertThatThrownBy(() -> fourShards.readingItem(new Reading("dev-1", T, null, "{\"a\":1} x")))
                .isInstanceOf(ItemBuilder.UnstorableReadingException.class);
    }

    @Test
    void tenThousandRejectionsOfOneReasonSpreadEvenlyOverSixteenPartitionKeys() {
        Map<String, Integer> perKey = new java.util.TreeMap<>();
        for (int i = 0; i < 10_000; i++) {
            Rejection rejection = Rejection.of(RejectReason.INVALID_JSON, "not JSON", "{bad " + i, 0L, "shard-0/" + i);
            perKey.merge(fourShards.rejectionItem(rejection).get("pk").s(), 1, Integer::sum);
        }

        assertThat(perKey).hasSize(16).allSatisfy((pk, items) -> {
            assertThat(pk).matches("invalid-json#([0-9]|1[0-5])");
            assertThat(items).as(pk).isBetween(500, 750);
        });
    }

    @Test
    void rejectionItemFollowsDesign() {
        Rejection rejection =
                Rejection.of(RejectReason.INVALID_JSON, "not JSON at 1:2", "{oops", 1_700_000_000_123L, "shard-1/42");
        Map<String, AttributeValue> item = fourShards.rejectionItem(rejection);

        assertThat(item).containsOnlyKeys("pk", "sk", "reason", "raw", "rawBytes", "arrivedAt", "origin");
        // k = the sort key (hex) modulo 16: its last hex digit
        assertThat(item.get("pk").s())
                .isEqualTo(
                        "invalid-json#" + Integer.parseInt(rejection.rawHash().substring(15), 16));
        assertThat(item.get("sk").s()).isEqualTo(rejection.rawHash()).matches("[0-9a-f]{16}");
        assertThat(item.get("reason").s()).isEqualTo("not JSON at 1:2");
        assertThat(item.get("raw").s()).isEqualTo("{oops");
        assertThat(item.get("rawBytes").n()).isEqualTo("5");
        assertThat(item.get("arrivedAt").s()).isEqualTo("2023-11-14T22:13:20.123Z");
        assertThat(item.get("origin").s()).isEqualTo("shard-1/42");
    }

    @Test
    void rawThatIsNotUtf8IsStoredAsBinary() {
        byte[] raw = {(byte) 0xff, (byte) 0xfe, 0x01};
        Map<String, AttributeValue> item =
                fourShards.rejectionItem(Rejection.of(RejectReason.INVALID_JSON, "m", raw, 0, "o"));
        assertThat(item.get("raw").b().asByteArray()).isEqualTo(raw);
    }
}
