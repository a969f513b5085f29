package io.periodtables.bench;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.job.input.FleetGenerator;
import io.periodtables.job.input.ReadingParser;
import io.periodtables.model.Reading;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The job's synthetic fleet for the benchmarks: the JSON text of
 * reading {@code n} exactly as {@link FleetGenerator} makes it for the full job, and the
 * {@link Reading} that {@link ReadingParser} makes of it. The sink-only contenders thus write the
 * very readings the full job writes.
 */
public final class FleetReadings {

    private final FleetGenerator generator;
    private final ReadingParser parser;

    /** The fleet of {@code config}'s {@code generator.*} keys, starting at {@code start}. */
    public FleetReadings(PeriodTablesConfig config, Instant start) {
        this.generator = FleetGenerator.of(config, start);
        this.parser = new ReadingParser(config);
    }

    /** The JSON record of reading {@code n}. */
    public String json(long n) {
        return generator.map(n);
    }

    /** Event time of reading {@code n}. */
    public long eventMillis(long n) {
        return generator.eventMillis(n);
    }

    /** The JSON records of readings {@code 0..count-1}, as UTF-8 bytes. */
    public byte[][] records(int count) {
        byte[][] out = new byte[count][];
        for (int n = 0; n < count; n++) {
            out[n] = json(n).getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    /** Readings {@code 0..count-1}, parsed as the job parses them. */
    public Reading[] readings(int count) {
        long now = System.currentTimeMillis();
        List<Reading> out = new ArrayList<>(count);
        for (int n = 0; n < count; n++) {
            out.add(reading(n, now));
        }
        return out.toArray(new Reading[0]);
    }

    /** Reading {@code n}, parsed as the job parses it at wall-clock time {@code nowMillis}. */
    public Reading reading(long n, long nowMillis) {
        Reading[] parsed = new Reading[1];
        parser.parse(json(n).getBytes(StandardCharsets.UTF_8), "bench", nowMillis, r -> parsed[0] = r, rejection -> {
            throw new IllegalStateException("generator reading rejected: " + rejection);
        });
        return parsed[0];
    }
}
