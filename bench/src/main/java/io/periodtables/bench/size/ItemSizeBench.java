package io.periodtables.bench.size;

import io.periodtables.bench.BenchConfigs;
import io.periodtables.bench.BenchLog;
import io.periodtables.bench.FleetReadings;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.item.ReadingItems;
import io.periodtables.model.Reading;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Benchmark 4: the DynamoDB-counted size of the seed reading's item with our key layout (hourly
 * tables, 4 shards), attribute by attribute, against the 200-byte target (one write capacity
 * unit covers 1 KB; the target keeps room for larger payloads).
 */
public final class ItemSizeBench {

    static final int SAMPLE = 10_000;

    private ItemSizeBench() {}

    public static String run() {
        PeriodTablesConfig config = BenchConfigs.load(BenchConfigs.fleet(
                "readings",
                URI.create("http://127.0.0.1:8000"),
                SAMPLE,
                100,
                BenchConfigs.fleetStart(4),
                Duration.ofMinutes(150)));
        FleetReadings fleet = new FleetReadings(config, BenchConfigs.fleetStart(4));
        ReadingItems items = new ReadingItems(config);
        Reading[] readings = fleet.readings(SAMPLE);
        // reading 0 has round values (18.0, 30.0, 990.0), smaller than most; show reading 1 and the range
        int shown = 1;
        Reading reading = readings[shown];
        Map<String, AttributeValue> item = items.item(reading);
        long total = DynamoDbItemSize.of(item);
        long min = Long.MAX_VALUE;
        long max = 0;
        for (Reading r : readings) {
            long size = DynamoDbItemSize.of(items.item(r));
            min = Math.min(min, size);
            max = Math.max(max, size);
        }
        StringBuilder md = new StringBuilder("## 4. Item size\n\n");
        md.append("A seed reading as the generator sends it (")
                .append(fleet.json(shown).length())
                .append(" bytes of JSON):\n\n```\n")
                .append(fleet.json(shown))
                .append("\n```\n\n| attribute | value | bytes (name + value) |\n|---|---|---|\n");
        for (Map.Entry<String, AttributeValue> e : new TreeMap<>(item).entrySet()) {
            String value =
                    e.getValue().s() != null ? e.getValue().s() : e.getValue().n();
            md.append("| ")
                    .append(e.getKey())
                    .append(" | `")
                    .append(value)
                    .append("` | ")
                    .append(DynamoDbItemSize.of(Map.of(e.getKey(), e.getValue())))
                    .append(" |\n");
        }
        md.append("| **total** | | **")
                .append(total)
                .append("** (target ≤ 200: ")
                .append(total <= 200 ? "met" : "missed")
                .append("; 1 WCU per write) |\n");
        md.append(String.format(
                java.util.Locale.ROOT,
                "%nOver the first %,d readings of the fleet: %d–%d bytes per item"
                        + " (hourly tables, 4 shards, no `ttl`; with `tables.ttl` set, `ttl` adds 3 + 6 = 9 bytes).%n",
                SAMPLE,
                min,
                max));
        BenchLog.log("item size: " + total + " bytes (" + min + "-" + max + ")");
        return md.toString();
    }
}
