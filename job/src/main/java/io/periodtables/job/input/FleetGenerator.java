package io.periodtables.job.input;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.SinkRecord;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;

/**
 * The synthetic device fleet of the local run: reading {@code n} comes from device
 * {@code n mod devices} at event time {@code start + n * speedup / rate} seconds, as the same
 * JSON text a Kinesis record would carry. Readings are a pure function of {@code n}, so a
 * restarted source (it checkpoints its position) produces exactly the same readings again.
 *
 * <p>Run it with parallelism 1: the underlying sequence source splits its index range between
 * subtasks, which would put the subtasks' event times far apart.
 */
@Internal
public final class FleetGenerator implements GeneratorFunction<Long, String> {
    private static final long serialVersionUID = 1L;

    private final String deviceField;
    private final String timestampField;
    private final int devices;
    private final long startMillis;
    private final double millisPerReading;

    private FleetGenerator(
            String deviceField,
            String timestampField,
            int devices,
            Instant start,
            double ratePerSecond,
            double speedup) {
        this.deviceField = deviceField;
        this.timestampField = timestampField;
        this.devices = devices;
        this.startMillis = start.toEpochMilli();
        this.millisPerReading = 1000.0 * speedup / ratePerSecond;
    }

    /** The fleet of {@code config}'s {@code generator.*} keys; {@code now} resolves to {@code clockNow}. */
    public static FleetGenerator of(PeriodTablesConfig config, Instant clockNow) {
        Instant start = config.find(ConfigKeys.GENERATOR_START).orElse(clockNow);
        return new FleetGenerator(
                config.get(ConfigKeys.INPUT_DEVICE_FIELD),
                config.get(ConfigKeys.INPUT_TIMESTAMP_FIELD),
                config.get(ConfigKeys.GENERATOR_DEVICES),
                start,
                config.get(ConfigKeys.GENERATOR_RATE),
                config.get(ConfigKeys.GENERATOR_SPEEDUP));
    }

    /** A rate-limited source of {@code generator.count} (default: unbounded) records of {@code records}. */
    public static DataGeneratorSource<SinkRecord> source(
            PeriodTablesConfig config, GeneratorFunction<Long, SinkRecord> records) {
        long count = config.find(ConfigKeys.GENERATOR_COUNT).orElse(Long.MAX_VALUE);
        return new DataGeneratorSource<>(
                records,
                count,
                RateLimiterStrategy.perSecond(config.get(ConfigKeys.GENERATOR_RATE)),
                TypeInformation.of(SinkRecord.class));
    }

    /** Event time of reading {@code n}. */
    public long eventMillis(long n) {
        return startMillis + (long) (n * millisPerReading);
    }

    @Override
    public String map(Long index) {
        long n = index;
        long h = mix(n);
        // Plausible indoor values; two decimals keep the JSON (and the item) small. Decimal, not
        // double arithmetic: 18 + 0.24 is 18.24, not 18.240000000000002.
        String temperature = BigDecimal.valueOf(1800 + (h & 0x3ff), 2).toPlainString();
        String humidity = BigDecimal.valueOf(3000 + ((h >>> 10) & 0xfff), 2).toPlainString();
        String pressure = BigDecimal.valueOf(99000 + ((h >>> 22) & 0xfff), 2).toPlainString();
        return "{\"" + deviceField + "\":\"" + deviceId(n % devices)
                + "\",\"" + timestampField + "\":\""
                + DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochMilli(eventMillis(n)))
                + "\",\"temperature\":" + temperature
                + ",\"humidity\":" + humidity
                + ",\"pressure\":" + pressure + "}";
    }

    /** The id of device {@code index} of the fleet: {@code device-00007}. */
    public static String deviceId(long index) {
        String digits = Long.toString(index);
        return "device-" + "00000".substring(Math.min(5, digits.length())) + digits;
    }

    private static long mix(long z) {
        // SplitMix64 finalizer: deterministic, well spread.
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
