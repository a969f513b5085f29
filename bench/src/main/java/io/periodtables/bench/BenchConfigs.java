package io.periodtables.bench;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The benchmark's job configuration: hourly tables, 4 shards, parallelism 2, and a synthetic
 * fleet of {@code count} readings (the seed reading: deviceId, timestamp, temperature, humidity,
 * pressure) whose event times span {@code span}, ending well in the past so that no reading
 * counts as "too far in the future".
 */
public final class BenchConfigs {

    /** Readings per wall second of an unthrottled generator: far above what the job can take. */
    static final double UNTHROTTLED_RATE = 1e9;

    private BenchConfigs() {}

    /** Start of the fleet's event time: a whole hour, {@code hoursBack} hours ago, plus 15 minutes. */
    public static Instant fleetStart(int hoursBack) {
        return Instant.now()
                .truncatedTo(ChronoUnit.HOURS)
                .minus(Duration.ofHours(hoursBack))
                .plus(Duration.ofMinutes(15));
    }

    /**
     * A configuration for {@code count} unthrottled readings spread evenly over {@code span} from
     * {@code start}; with the default 2.5 h from a quarter past an hour they fall into 3 hourly
     * periods.
     */
    public static Map<String, String> fleet(
            String prefix, URI endpoint, long count, int devices, Instant start, Duration span) {
        Map<String, String> keys = new HashMap<>();
        keys.put("tables.prefix", prefix);
        keys.put("tables.period", "PT1H");
        keys.put("tables.shards", "4");
        keys.put("parallelism", Integer.toString(BenchCluster.PARALLELISM));
        keys.put("dynamodb.endpoint", endpoint.toString());
        keys.put("generator.devices", Integer.toString(devices));
        keys.put("generator.rate", fmt(UNTHROTTLED_RATE));
        // event-time millis per reading = 1000 * speedup / rate
        keys.put("generator.speedup", fmt(span.toMillis() * UNTHROTTLED_RATE / (1000.0 * count)));
        keys.put("generator.start", start.toString());
        keys.put("generator.count", Long.toString(count));
        return keys;
    }

    public static PeriodTablesConfig load(Map<String, String> keys) {
        return ConfigLoader.fromMap(keys, true);
    }

    /** {@code value} as a configuration value: plain notation, six decimals. */
    public static String fmt(double value) {
        return String.format(Locale.ROOT, "%.6f", value);
    }
}
