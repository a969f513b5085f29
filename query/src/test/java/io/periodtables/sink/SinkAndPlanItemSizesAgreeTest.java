package io.periodtables.sink;

import io.periodtables.conf.ConfigLoader;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.query.ItemSizeEstimateProbe;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plan's item-size estimate ({@code query}, which cannot depend on the sink at run time) and
 * the sink's own {@link ItemSize} of the item it builds must agree: this test sits in the sink's
 * package only to reach its internal item builder.
 */
class SinkAndPlanItemSizesAgreeTest {

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"temp\":21.5,\"ok\":true,\"unit\":\"C\"}",
        "{\"pos\":{\"x\":1.5,\"y\":-0.25,\"z\":null},\"tags\":[\"a\",null,3],\"n\":-1200.0100}",
        "{\"text\":\"Grüße, 温度 \\uD83D\\uDE00\",\"big\":123456789012345678901234567890,\"small\":1e-7}",
        "{\"deep\":{\"a\":{\"b\":[[1,2],[{\"c\":false}]]}},\"empty\":{},\"none\":[]}"})
    void sinkItemSizeEqualsPlanEstimate(String payload) throws Exception {
        for (String shards : new String[] {"1", "4", "12"}) {
            PeriodTablesConfig config = ConfigLoader.fromMap(Map.of("tables.shards", shards, "tables.ttl", "P30D"), true);
            // an event second whose ttl has 10 significant digits: the size the estimate assumes
            Reading reading = new Reading("dev-1", 1_795_000_001_000L, null, payload);
            long sinkSize = ItemSize.of(new ItemBuilder(config.sharding(), config.ttl().get()).readingItem(reading));
            String sample = "{\"deviceId\":\"dev-1\",\"timestamp\":\"2026-11-19T10:13:20Z\"," + payload.substring(1);
            // the shard suffix of the longest partition key; this reading may have landed on a shorter one
            long planSize = ItemSizeEstimateProbe.ofSample(sample, config, Integer.parseInt(shards));
            String pk = new ItemBuilder(config.sharding(), config.ttl().get()).readingItem(reading).get("pk").s();
            long longestPk = "dev-1".length() + (shards.equals("1") ? 0 : 1 + String.valueOf(Integer.parseInt(shards) - 1).length());
            assertThat(planSize).isEqualTo(sinkSize + longestPk - pk.length());
        }
    }
}
