package io.periodtables.bench;

import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.job.FleetReadings;
import io.periodtables.sink.Reading;
import io.periodtables.sink.SinkInternals;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * Benchmark 4: the DynamoDB-counted size of the seed reading's item with our key layout (hourly
 * tables, 4 shards), attribute by attribute, against the 200-byte target (one write capacity
 * unit covers 1 KB; the target keeps room for larger payloads).
 */
final class ItemSizeBench {

    private ItemSizeBench() {}

    static String run() {
        PeriodTablesConfig config = BenchConfigs.load(BenchConfigs.fleet("readings", URI.create("http://127.0.0.1:8000"),
                1000, 100, BenchConfigs.fleetStart(4), Duration.ofMinutes(150)));
        FleetReadings fleet = new FleetReadings(config, BenchConfigs.fleetStart(4));
        Reading reading = fleet.readings(1)[0];
        Map<String, AttributeValue> item = new SinkInternals(config).item(reading);
        long total = SinkInternals.sizeBytes(item);
        StringBuilder md = new StringBuilder("## 4. Item size\n\n");
        md.append("The seed reading as the generator sends it (").append(fleet.json(0).length()).append(" bytes of JSON):\n\n```\n")
                .append(fleet.json(0)).append("\n```\n\n| attribute | value | bytes (name + value) |\n|---|---|---|\n");
        for (Map.Entry<String, AttributeValue> e : new TreeMap<>(item).entrySet()) {
            String value = e.getValue().s() != null ? e.getValue().s() : e.getValue().n();
            md.append("| ").append(e.getKey()).append(" | `").append(value).append("` | ")
                    .append(SinkInternals.sizeBytes(Map.of(e.getKey(), e.getValue()))).append(" |\n");
        }
        md.append("| **total** | | **").append(total).append("** (target ≤ 200: ").append(total <= 200 ? "met" : "missed")
                .append("; 1 WCU per write) |\n");
        E2eBench.log("item size: " + total + " bytes");
        return md.toString();
    }
}
