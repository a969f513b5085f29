package io.periodtables.query;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ITCase's readings, from the start of a three-hour range: devices {@code dev-7} (120
 * readings), {@code dev-8} (40) and {@code dev-7#1} (10, whose keys look like dev-7's shard
 * keys); for dev-7 two readings in one millisecond, readings on both edges of the range, four
 * late readings (three inside the range, one before it) and a late second copy of reading 5.
 */
final class TestFleet {

    private final PeriodTablesConfig config;
    private final List<SinkRecord> records = new ArrayList<>();

    TestFleet(PeriodTablesConfig config, Instant start) {
        this.config = config;
        long t0 = start.toEpochMilli();
        for (int i = 0; i < 120; i++) {
            records.add(SinkRecord.period(onTime("dev-7", i, t0 + i * 90_000L + (i * 7_919L) % 60_000)));
        }
        for (int i = 0; i < 40; i++) {
            records.add(SinkRecord.period(onTime("dev-8", 100 + i, t0 + i * 270_000L + 1_234)));
        }
        for (int i = 0; i < 10; i++) {
            records.add(SinkRecord.period(onTime("dev-7#1", 200 + i, t0 + i * 1_000_000L + 77)));
        }
        long twin = Instant.parse("2025-03-10T11:11:11.111Z").toEpochMilli();
        records.add(SinkRecord.period(onTime("dev-7", 1000, twin)));
        records.add(SinkRecord.period(onTime("dev-7", 1001, twin)));
        records.add(SinkRecord.period(onTime("dev-7", 2000, t0)));
        records.add(SinkRecord.period(onTime("dev-7", 2001, t0 - 1)));
        records.add(SinkRecord.period(onTime("dev-7", 2002, t0 + 3 * 3_600_000L)));
        records.add(lateRecord(late("dev-7", 3000, Instant.parse("2025-03-10T10:15:00.500Z"))));
        records.add(lateRecord(late("dev-7", 3001, Instant.parse("2025-03-10T11:45:30Z"))));
        records.add(lateRecord(late("dev-7", 3002, Instant.parse("2025-03-10T12:59:59.999Z"))));
        records.add(lateRecord(late("dev-7", 3003, Instant.parse("2025-03-10T08:00:00Z"))));
        records.add(lateRecord(records.get(5).reading()));
        records.add(lateRecord(late("dev-8", 3100, Instant.parse("2025-03-10T11:30:00Z"))));
    }

    /** The watermark that made the late readings late, weeks after them: it names their late table (April's). */
    static final Instant LATE_WATERMARK = Instant.parse("2025-04-02T08:00:00Z");

    private static SinkRecord lateRecord(Reading reading) {
        return SinkRecord.late(reading, LATE_WATERMARK.toEpochMilli());
    }

    private static Reading onTime(String device, int i, long eventMillis) {
        return new Reading(device, eventMillis, null, "{\"i\":" + i + ",\"temp\":" + (20 + i % 10) + ".5}");
    }

    private static Reading late(String device, int i, Instant eventTime) {
        return new Reading(device, eventTime.toEpochMilli(), null, "{\"i\":" + i + ",\"late\":true}");
    }

    List<SinkRecord> records() {
        return records;
    }

    /** The device's distinct readings of {@code [from, to)}, in sort-key order. */
    List<Reading> expected(String device, Instant from, Instant to) {
        Map<String, Reading> bySk = new LinkedHashMap<>();
        for (SinkRecord record : records) {
            Reading r = record.reading();
            if (r.deviceId().equals(device)
                    && r.eventMillis() >= from.toEpochMilli()
                    && r.eventMillis() < to.toEpochMilli()) {
                bySk.put(sortKey(r), r);
            }
        }
        List<Reading> sorted = new ArrayList<>(bySk.values());
        sorted.sort(Comparator.comparing(this::sortKey));
        return sorted;
    }

    List<String> sortKeys(List<Reading> readings) {
        return readings.stream().map(this::sortKey).toList();
    }

    private String sortKey(Reading r) {
        return config.sharding()
                .keyOf(r.deviceId(), r.eventMillis(), r.eventId(), r.canonical())
                .sk();
    }
}
