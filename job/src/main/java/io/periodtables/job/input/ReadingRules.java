package io.periodtables.job.input;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.ReadingItems;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.job.input.JsonFields.Field;
import io.periodtables.model.Reading;
import io.periodtables.model.RejectReason;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Decides whether one JSON object of a record is a reading that can be stored: a non-empty device
 * id that fits DynamoDB's key limit, an optional non-empty {@code eventId}, an event time (ISO-8601
 * or epoch milliseconds) that has a period table and is not too far ahead of the wall clock, and a
 * payload {@link CanonicalPayload} can write. {@link ReadingParser} reads the record and hands it
 * each object's top-level fields; what fails a rule becomes a {@link Problem} with its reason code.
 */
final class ReadingRules {

    /** Integer timestamps below this (1973-03-03 in millis) are almost surely epoch seconds. */
    static final long MIN_EPOCH_MILLIS = 100_000_000_000L;

    /** How close to the year bounds a timestamp must be for its period to be checked too. */
    private static final long EDGE_MILLIS = Duration.ofDays(31).toMillis();

    private static final String EVENT_ID = "eventId";

    private final String deviceField;
    private final String timestampField;
    private final int maxDeviceIdBytes;
    private final long maxFutureMillis;
    private final PeriodCalendar calendar;
    private final CanonicalPayload payload;
    private final ReadingItems items;

    ReadingRules(PeriodTablesConfig config) {
        this.deviceField = config.get(ConfigKeys.INPUT_DEVICE_FIELD);
        this.timestampField = config.get(ConfigKeys.INPUT_TIMESTAMP_FIELD);
        this.maxDeviceIdBytes = config.sharding().maxDeviceIdBytes();
        this.maxFutureMillis = config.get(ConfigKeys.INPUT_MAX_FUTURE).toMillis();
        this.calendar = config.calendar();
        this.payload = new CanonicalPayload(
                Set.of(deviceField, timestampField, EVENT_ID),
                config.ttl().isPresent()
                        ? Set.of(ItemAttributes.PK, ItemAttributes.SK, ItemAttributes.TTL)
                        : Set.of(ItemAttributes.PK, ItemAttributes.SK));
        this.items = new ReadingItems(config);
    }

    /** The reading in a record's top-level fields, or the {@link Problem} that makes it a rejection. */
    Object readingOf(List<Field> fields, long nowMillis) {
        Object device = null;
        Object time = null;
        Object eventId = null;
        for (Field field : fields) { // of duplicate keys, the last one wins
            if (field.name().equals(deviceField)) {
                device = field.value();
            } else if (field.name().equals(timestampField)) {
                time = field.value();
            } else if (field.name().equals(EVENT_ID)) {
                eventId = field.value();
            }
        }
        if (!(device instanceof String deviceId) || deviceId.isEmpty()) {
            return new Problem(RejectReason.MISSING_DEVICE, "field '" + deviceField + "' must be a non-empty string");
        }
        // a char is at most 3 UTF-8 bytes (a pair 4), so most ids need no encoding to be checked
        if (deviceId.length() * 3L > maxDeviceIdBytes
                && deviceId.getBytes(StandardCharsets.UTF_8).length > maxDeviceIdBytes) {
            return new Problem(
                    RejectReason.DEVICE_TOO_LONG,
                    "device id is longer than " + maxDeviceIdBytes
                            + " UTF-8 bytes (DynamoDB's key limit with the shard suffix)");
        }
        if (eventId != null && (!(eventId instanceof String id) || id.isEmpty())) {
            return new Problem(RejectReason.BAD_EVENT_ID, "field 'eventId' must be a non-empty string when present");
        }
        long eventMillis;
        try {
            eventMillis = timestampOf(time);
        } catch (IllegalArgumentException e) {
            return new Problem(RejectReason.BAD_TIMESTAMP, e.getMessage());
        }
        if (eventMillis > nowMillis + maxFutureMillis) {
            return new Problem(
                    RejectReason.TOO_FAR_FUTURE,
                    "timestamp " + Instant.ofEpochMilli(eventMillis) + " is more than "
                            + Duration.ofMillis(maxFutureMillis) + " ahead of the wall clock");
        }
        Reading reading;
        try {
            reading = new Reading(deviceId, eventMillis, (String) eventId, payload.write(fields));
        } catch (CanonicalPayload.BadValueException e) {
            return new Problem(e.reason, e.getMessage());
        }
        // Judged here, before the period windows, not by the sink after them: a reading the sink
        // would refuse must not reach the rollups, the latest table or the archive.
        Optional<ReadingItems.Refusal> refusal = items.refusal(reading);
        if (refusal.isPresent()) {
            return new Problem(refusal.get().reason(), refusal.get().message());
        }
        return reading;
    }

    private long timestampOf(Object time) {
        if (time == null) {
            throw new IllegalArgumentException("field '" + timestampField + "' is missing");
        }
        long millis;
        if (time instanceof Long integer) {
            millis = integer;
            if (millis < MIN_EPOCH_MILLIS) {
                throw new IllegalArgumentException(
                        "integer timestamp " + millis + " is not epoch milliseconds (before 1973; epoch seconds?)");
            }
        } else if (time instanceof BigInteger) {
            throw new IllegalArgumentException("timestamp " + time + " is out of range");
        } else if (time instanceof String iso) {
            try {
                millis = IsoTimestamp.epochMillis(iso);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("timestamp '" + ReadingParser.abbreviate(iso)
                        + "' is not an ISO-8601 instant such as 2026-11-22T13:45:01.123Z");
            }
        } else {
            throw new IllegalArgumentException("timestamp must be an ISO-8601 string or integer epoch milliseconds");
        }
        if (millis < Instants.MIN_MILLIS || millis > Instants.MAX_MILLIS) {
            throw new IllegalArgumentException(
                    "timestamp " + Instant.ofEpochMilli(millis) + " is outside the years 0001-9999");
        }
        if (millis < Instants.MIN_MILLIS + EDGE_MILLIS || millis > Instants.MAX_MILLIS - EDGE_MILLIS) {
            // Near the edges the table label's year (in tables.zone, or ISO week-based) can differ from UTC's.
            try {
                calendar.periodOf(millis);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("timestamp " + Instant.ofEpochMilli(millis)
                        + " has no period table in " + calendar + ": " + e.getMessage());
            }
        }
        return millis;
    }

    /** Why a reading cannot be stored. */
    record Problem(RejectReason reason, String message) {}
}
