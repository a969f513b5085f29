package io.periodtables.sink;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.model.Reading;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Deterministic readings for the sink's ITCases and the items DESIGN.md says they become,
 * written out by hand (keys from the core's {@link WriteSharding}, payload attributes by
 * type) so the tests do not check the item builder against itself.
 */
final class TestReadings {

    /** Start of the first of the three hours the readings span. */
    static final Instant START = Instant.parse("2026-11-22T13:00:00Z");

    private TestReadings() {}

    /** Reading {@code i} of {@code n}, spread evenly over three hours, 7 devices. */
    static Reading reading(int i, int n) {
        long eventMillis = START.toEpochMilli() + i * (3 * 3_600_000L / n);
        String payload = "{\"i\":" + i + ",\"ok\":" + (i % 2 == 0) + ",\"pos\":{\"x\":1.5,\"y\":" + i + ".25},\"s\":\"v"
                + i + "\",\"tags\":[\"a\",\"b\"]}";
        return new Reading("dev-" + (i % 7), eventMillis, null, payload);
    }

    /** The item of {@link #reading(int, int)}. */
    static Map<String, AttributeValue> expectedItem(PeriodTablesConfig config, int i, int n) {
        Reading reading = reading(i, n);
        WriteSharding.ItemKey key =
                config.sharding().keyOf(reading.deviceId(), reading.eventMillis(), null, reading.canonical());
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("pk", AttributeValue.fromS(key.pk()));
        item.put("sk", AttributeValue.fromS(key.sk()));
        item.put("i", AttributeValue.fromN(Integer.toString(i)));
        item.put("ok", AttributeValue.fromBool(i % 2 == 0));
        item.put(
                "pos",
                AttributeValue.fromM(Map.of("x", AttributeValue.fromN("1.5"), "y", AttributeValue.fromN(i + ".25"))));
        item.put("s", AttributeValue.fromS("v" + i));
        item.put("tags", AttributeValue.fromL(List.of(AttributeValue.fromS("a"), AttributeValue.fromS("b"))));
        return item;
    }

    /** Expected contents of every period table for readings 0..n-1: table -> [pk, sk] -> item. */
    static Map<String, Map<List<String>, Map<String, AttributeValue>>> expectedTables(
            PeriodTablesConfig config, int n) {
        Map<String, Map<List<String>, Map<String, AttributeValue>>> tables = new HashMap<>();
        for (int i = 0; i < n; i++) {
            Map<String, AttributeValue> item = expectedItem(config, i, n);
            String table = config.naming()
                    .periodTableOf(Instant.ofEpochMilli(reading(i, n).eventMillis()));
            tables.computeIfAbsent(table, t -> new HashMap<>())
                    .put(List.of(item.get("pk").s(), item.get("sk").s()), item);
        }
        return tables;
    }
}
