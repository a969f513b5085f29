package io.periodtables.sink;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import java.util.HashMap;
import java.util.Map;

/** Configurations used by the sink's tests: hourly tables, 4 shards, prefix {@code readings}. */
final class TestConfigs {

    private TestConfigs() {}

    static PeriodTablesConfig hourly4Shards(String... keyValues) {
        Map<String, String> values = new HashMap<>();
        values.put("tables.period", "PT1H");
        values.put("tables.shards", "4");
        for (int i = 0; i < keyValues.length; i += 2) {
            values.put(keyValues[i], keyValues[i + 1]);
        }
        return ConfigLoader.fromMap(values, true);
    }
}
