package io.periodtables.query;

import io.periodtables.conf.ConfigLoader;
import io.periodtables.conf.PeriodTablesConfig;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ItemSizeEstimateTest {

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
        assertThat(ItemSizeEstimate.ofSample(sample, config, 1)).isEqualTo(pk + sk + temp + ok + unit);
        assertThat(ItemSizeEstimate.ofSample(sample, config, 6)).isEqualTo(pk + 2 + sk + temp + ok + unit);
        assertThat(ItemSizeEstimate.ofSample(sample, config, 12)).isEqualTo(pk + 3 + sk + temp + ok + unit);
    }

    @Test
    void nestedValuesCountTheirOverheadAndTtlCountsWhenConfigured() throws Exception {
        String sample = "{\"deviceId\":\"d\",\"timestamp\":1,\"pos\":{\"x\":1,\"y\":null},\"tags\":[\"a\",null]}";
        PeriodTablesConfig withTtl = ConfigLoader.fromMap(Map.of("tables.ttl", "P30D"), true);

        long keys = 2 + 1 + 2 + 33;
        long pos = 3 + 3 + (1 + 1 + 2);
        long tags = 4 + 3 + (1 + 1) + (1 + 1);
        assertThat(ItemSizeEstimate.ofSample(sample, config, 1)).isEqualTo(keys + pos + tags);
        assertThat(ItemSizeEstimate.ofSample(sample, withTtl, 1)).isEqualTo(keys + pos + tags + 3 + 6);
    }

    @Test
    void configuredFieldNamesAreHonouredAndTheLargestOfSeveralSamplesCounts() throws Exception {
        PeriodTablesConfig renamed = ConfigLoader.fromMap(Map.of("input.device-field", "id", "input.timestamp-field", "at"), true);

        long small = ItemSizeEstimate.ofSample("{\"id\":\"d\",\"at\":1,\"v\":1}", renamed, 1);
        long both = ItemSizeEstimate.ofSample("[{\"id\":\"d\",\"at\":1,\"v\":1},{\"id\":\"d\",\"at\":1,\"v\":\"long text\"}]", renamed, 1);

        assertThat(small).isEqualTo(2 + 1 + 2 + 33 + 1 + 2);
        assertThat(both).isEqualTo(2 + 1 + 2 + 33 + 1 + 9);
    }

    @Test
    void aSampleWithoutDeviceIsRefusedNamingTheField() {
        assertThatThrownBy(() -> ItemSizeEstimate.ofSample("{\"v\":1}", config, 1))
                .hasMessageContaining("'deviceId' (input.device-field)");
        assertThatThrownBy(() -> ItemSizeEstimate.ofSample("42", config, 1))
                .hasMessageContaining("expected a JSON reading object");
    }

    @Test
    void numbersTakeOneBytePerTwoSignificantDigitsPlusOne() {
        assertThat(ItemSizeEstimate.numberSize("0")).isEqualTo(1);
        assertThat(ItemSizeEstimate.numberSize("7")).isEqualTo(2);
        assertThat(ItemSizeEstimate.numberSize("1000")).isEqualTo(2);
        assertThat(ItemSizeEstimate.numberSize("12345")).isEqualTo(4);
        assertThat(ItemSizeEstimate.numberSize("-12345")).isEqualTo(5);
        assertThat(ItemSizeEstimate.numberSize("0.001")).isEqualTo(2);
    }
}
