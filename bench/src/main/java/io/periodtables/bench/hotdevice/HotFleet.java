package io.periodtables.bench.hotdevice;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.job.input.FleetGenerator;
import io.periodtables.job.input.ParsingGenerator;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;

/**
 * The hot-device bench's input (issue 48): one device reading every millisecond of event time
 * among {@code quiet} devices reading once every {@code quietEvery} each. Every block of {@code k}
 * milliseconds ({@code k = quietEvery ÷ quiet}) holds {@code k} readings of the hot device, one a
 * millisecond, and then one of the next quiet device in turn; event time never goes back. Record
 * {@code n} is a pure function of {@code n} (a restored source repeats it), the JSON a Kinesis
 * record would carry.
 */
final class HotFleet implements ParsingGenerator.Records {
    private static final long serialVersionUID = 1L;

    static final String HOT_DEVICE = "device-hot";

    private final String deviceField;
    private final String timestampField;
    private final int quiet;
    private final long startMillis;
    /** Milliseconds per block, and the hot device's readings in it. */
    private final int block;

    HotFleet(PeriodTablesConfig config, int quiet, Duration quietEvery, Instant start) {
        if (quiet < 1 || quietEvery.toMillis() % quiet != 0) {
            throw new IllegalArgumentException(quiet + " quiet devices do not share " + quietEvery
                    + " evenly: it must be a whole number of milliseconds per quiet device");
        }
        this.deviceField = config.get(ConfigKeys.INPUT_DEVICE_FIELD);
        this.timestampField = config.get(ConfigKeys.INPUT_TIMESTAMP_FIELD);
        this.quiet = quiet;
        this.startMillis = start.toEpochMilli();
        this.block = (int) (quietEvery.toMillis() / quiet);
    }

    /** Readings per second of event time, all devices. */
    double perSecond() {
        return 1000.0 * (block + 1) / block;
    }

    /** The readings of {@code span} of event time from the start. */
    long count(Duration span) {
        return span.toMillis() / block * (block + 1);
    }

    boolean isHot(long n) {
        return n % (block + 1) < block;
    }

    String deviceOf(long n) {
        return isHot(n) ? HOT_DEVICE : FleetGenerator.deviceId((n / (block + 1)) % quiet);
    }

    long eventMillis(long n) {
        return startMillis + n / (block + 1) * block + Math.min(n % (block + 1), block - 1);
    }

    @Override
    public byte[] record(long n) {
        long h = n * 0x9e3779b97f4a7c15L;
        h ^= h >>> 29;
        return ("{\"" + deviceField + "\":\"" + deviceOf(n) + "\",\"" + timestampField + "\":\""
                        + DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochMilli(eventMillis(n)))
                        + "\",\"temperature\":" + BigDecimal.valueOf(1800 + (h & 0x3ff), 2)
                        + ",\"humidity\":" + BigDecimal.valueOf(3000 + ((h >>> 10) & 0xfff), 2)
                        + ",\"pressure\":" + BigDecimal.valueOf(99000 + ((h >>> 22) & 0xfff), 2) + "}")
                .getBytes(StandardCharsets.UTF_8);
    }
}
