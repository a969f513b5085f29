package io.periodtables.query.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.ItemAttributes;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class SampleItemTest {

    private final PeriodTablesConfig config = ConfigLoader.fromMap(Map.of(), true);

    @Test
    void sampleReadingBecomesKeysPlusPayloadByDynamoDbsRules() throws Exception {
        String sample = "{\"deviceId\":\"dev-1\",\"timestamp\":\"2026-11-22T13:45:01.123Z\",\"eventId\":\"e-7\","
                + "\"temp\":21.5,\"ok\":true,\"unit\":\"C\",\"gone\":null}";

        long pk = 2 + 5;
        long sk = 2 + 33;
        long temp = 4 + 3; // 21.5: digits 2|15 -> two base-100 bytes + exponent
        long ok = 2 + 1;
        long unit = 4 + 1;
        assertThat(SampleItem.largestBytes(sample, config, 1)).isEqualTo(pk + sk + temp + ok + unit);
        assertThat(SampleItem.largestBytes(sample, config, 6)).isEqualTo(pk + 2 + sk + temp + ok + unit);
        assertThat(SampleItem.largestBytes(sample, config, 12)).isEqualTo(pk + 3 + sk + temp + ok + unit);
    }

    @Test
    void nestedValuesCountTheirOverheadAndTtlCountsWhenConfigured() throws Exception {
        String sample = "{\"deviceId\":\"d\",\"timestamp\":1,\"pos\":{\"x\":1,\"y\":null},\"tags\":[\"a\",null]}";
        PeriodTablesConfig withTtl = ConfigLoader.fromMap(Map.of("tables.ttl", "P30D"), true);

        long keys = 2 + 1 + 2 + 33;
        long pos = 3 + 3 + (1 + 1 + 2);
        long tags = 4 + 3 + (1 + 1) + (1 + 1);
        assertThat(SampleItem.largestBytes(sample, config, 1)).isEqualTo(keys + pos + tags);
        assertThat(SampleItem.largestBytes(sample, withTtl, 1)).isEqualTo(keys + pos + tags + 3 + 6);
    }

    @Test
    void theItemIsTheSinksLayoutWithTheLongestPartitionKey() throws Exception {
        PeriodTablesConfig withTtl = ConfigLoader.fromMap(Map.of("tables.ttl", "P30D"), true);
        Map<String, AttributeValue> reading = ItemAttributes.ofJsonObject(
                "{\"deviceId\":\"dev-1\",\"timestamp\":1795000001000,\"eventId\":\"e-7\",\"v\":1.5}");

        Map<String, AttributeValue> item = SampleItem.itemOf(reading, withTtl, 12);

        assertThat(item).containsOnlyKeys("pk", "sk", "ttl", "v");
        assertThat(item.get("pk").s()).isEqualTo("dev-1#11");
        assertThat(item.get("sk").s()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z#[0-9a-f]{8}");
        assertThat(item.get("ttl").n()).hasSize(10);
        assertThat(item.get("v")).isEqualTo(AttributeValue.fromN("1.5"));
        assertThat(reading).containsKey("deviceId");
    }

    @Test
    void configuredFieldNamesAreHonouredAndTheLargestOfSeveralSamplesCounts() throws Exception {
        PeriodTablesConfig renamed =
                ConfigLoader.fromMap(Map.of("input.device-field", "id", "input.timestamp-field", "at"), true);

        long small = SampleItem.largestBytes("{\"id\":\"d\",\"at\":1,\"v\":1}", renamed, 1);
        long both = SampleItem.largestBytes(
                "[{\"id\":\"d\",\"at\":1,\"v\":1},{\"id\":\"d\",\"at\":1,\"v\":\"long text\"}]", renamed, 1);

        assertThat(small).isEqualTo(2 + 1 + 2 + 33 + 1 + 2);
        assertThat(both).isEqualTo(2 + 1 + 2 + 33 + 1 + 9);
    }

    @Test
    void aSampleWithoutDeviceOrWithAReservedFieldIsRefusedNamingTheField() {
        assertThatThrownBy(() -> SampleItem.largestBytes("{\"v\":1}", config, 1))
                .hasMessageContaining("'deviceId' (input.device-field)");
        assertThatThrownBy(() -> SampleItem.largestBytes("{\"deviceId\":7}", config, 1))
                .hasMessageContaining("'deviceId' (input.device-field)");
        assertThatThrownBy(() -> SampleItem.largestBytes("{\"deviceId\":\"d\",\"pk\":1}", config, 1))
                .hasMessageContaining("field 'pk' is reserved");
        assertThatThrownBy(() -> SampleItem.largestBytes("42", config, 1))
                .hasMessageContaining("expected a JSON object or an array of them");
        assertThatThrownBy(() -> SampleItem.largestBytes("[]", config, 1))
                .hasMessageContaining("expected a JSON reading object (or an array of them), found none");
    }

    @Test
    void ttlIsPayloadWhenTablesTtlIsUnset() throws Exception {
        assertThat(SampleItem.largestBytes("{\"deviceId\":\"d\",\"ttl\":5}", config, 1))
                .isEqualTo(2 + 1 + 2 + 33 + 3 + 2);
    }
}
