package io.periodtables.job.input;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.model.Reading;
import io.periodtables.model.RejectReason;
import io.periodtables.model.Rejection;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The job's parser as it was before streaming parsing (Jackson trees), kept as the reference the
 * streaming {@link ReadingParser} must match output for output (see ReadingParserOracleTest).
 */
final class TreeReadingParser {

    static final int MAX_DEPTH = 32;
    static final long MIN_EPOCH_MILLIS = 100_000_000_000L;
    /** How close to the year bounds a timestamp must be for its period to be checked too. */
    private static final long EDGE_MILLIS = Duration.ofDays(31).toMillis();

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_DEPTH + 1)
                    .maxNumberLength(Integer.MAX_VALUE)
                    .build())
            .build();
    private static final ObjectMapper MAPPER = JsonMapper.builder(FACTORY)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private final String deviceField;
    private final String timestampField;
    private final int maxDeviceIdBytes;
    private final long maxFutureMillis;
    private final boolean ttlReserved;
    private final PeriodCalendar calendar;

    TreeReadingParser(PeriodTablesConfig config) {
        this.deviceField = config.get(ConfigKeys.INPUT_DEVICE_FIELD);
        this.timestampField = config.get(ConfigKeys.INPUT_TIMESTAMP_FIELD);
        this.maxDeviceIdBytes = config.sharding().maxDeviceIdBytes();
        this.maxFutureMillis = config.get(ConfigKeys.INPUT_MAX_FUTURE).toMillis();
        this.ttlReserved = config.ttl().isPresent();
        this.calendar = config.calendar();
    }

    void parse(byte[] raw, String origin, long nowMillis, Consumer<Reading> readings, Consumer<Rejection> rejections) {
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw))
                    .toString();
        } catch (CharacterCodingException e) {
            rejections.accept(
                    Rejection.of(RejectReason.INVALID_JSON, "record is not valid UTF-8", raw, nowMillis, origin));
            return;
        }
        JsonNode root;
        try {
            root = MAPPER.readTree(text);
        } catch (StreamConstraintsException e) {
            // Nesting depth is the only read constraint that input can reach (see FACTORY).
            rejections.accept(
                    Rejection.of(RejectReason.TOO_DEEP, firstLine(e.getOriginalMessage()), raw, nowMillis, origin));
            return;
        } catch (JsonProcessingException e) {
            rejections.accept(
                    Rejection.of(RejectReason.INVALID_JSON, firstLine(e.getOriginalMessage()), raw, nowMillis, origin));
            return;
        }
        if (root == null || root.isMissingNode()) {
            rejections.accept(Rejection.of(RejectReason.INVALID_JSON, "record is empty", raw, nowMillis, origin));
        } else if (root.isObject()) {
            parseReading((ObjectNode) root, raw, origin, nowMillis, readings, rejections);
        } else if (root.isArray()) {
            if (root.isEmpty()) {
                rejections.accept(
                        Rejection.of(RejectReason.EMPTY_ARRAY, "record is an empty array", raw, nowMillis, origin));
            }
            int i = 0;
            for (JsonNode element : root) {
                String elementOrigin = origin + "[" + i++ + "]";
                if (element.isObject()) {
                    parseReading((ObjectNode) element, bytes(element), elementOrigin, nowMillis, readings, rejections);
                } else {
                    rejections.accept(Rejection.of(
                            RejectReason.NOT_AN_OBJECT,
                            "array element is " + element.getNodeType(),
                            bytes(element),
                            nowMillis,
                            elementOrigin));
                }
            }
        } else {
            rejections.accept(Rejection.of(
                    RejectReason.NOT_AN_OBJECT,
                    "record is a JSON " + root.getNodeType() + ", not an object",
                    raw,
                    nowMillis,
                    origin));
        }
    }

    private void parseReading(
            ObjectNode node,
            byte[] raw,
            String origin,
            long nowMillis,
            Consumer<Reading> readings,
            Consumer<Rejection> rejections) {
        String problem = null;
        RejectReason reason = null;
        JsonNode device = node.get(deviceField);
        JsonNode time = node.get(timestampField);
        JsonNode eventIdNode = node.get("eventId");
        long eventMillis = 0;
        if (device == null || !device.isTextual() || device.textValue().isEmpty()) {
            reason = RejectReason.MISSING_DEVICE;
            problem = "field '" + deviceField + "' must be a non-empty string";
        } else if (device.textValue().getBytes(StandardCharsets.UTF_8).length > maxDeviceIdBytes) {
            reason = RejectReason.DEVICE_TOO_LONG;
            problem = "device id is longer than " + maxDeviceIdBytes
                    + " UTF-8 bytes (DynamoDB's key limit with the shard suffix)";
        } else if (eventIdNode != null
                && !eventIdNode.isNull()
                && (!eventIdNode.isTextual() || eventIdNode.textValue().isEmpty())) {
            reason = RejectReason.BAD_EVENT_ID;
            problem = "field 'eventId' must be a non-empty string when present";
        } else {
            try {
                eventMillis = timestampOf(time);
                if (eventMillis > nowMillis + maxFutureMillis) {
                    reason = RejectReason.TOO_FAR_FUTURE;
                    problem = "timestamp " + Instant.ofEpochMilli(eventMillis) + " is more than "
                            + Duration.ofMillis(maxFutureMillis) + " ahead of the wall clock";
                }
            } catch (IllegalArgumentException e) {
                reason = RejectReason.BAD_TIMESTAMP;
                problem = e.getMessage();
            }
        }
        String payload = null;
        if (reason == null) {
            try {
                payload = canonicalPayload(node);
            } catch (CanonicalPayload.BadValueException e) {
                reason = e.reason;
                problem = e.getMessage();
            }
        }
        if (reason != null) {
            rejections.accept(Rejection.of(reason, problem, raw, nowMillis, origin));
            return;
        }
        String eventId = eventIdNode == null || eventIdNode.isNull() ? null : eventIdNode.textValue();
        readings.accept(new Reading(device.textValue(), eventMillis, eventId, payload));
    }

    private long timestampOf(JsonNode time) {
        if (time == null || time.isNull()) {
            throw new IllegalArgumentException("field '" + timestampField + "' is missing");
        }
        long millis;
        if (time.isIntegralNumber()) {
            if (!time.canConvertToLong()) {
                throw new IllegalArgumentException("timestamp " + time + " is out of range");
            }
            millis = time.longValue();
            if (millis < MIN_EPOCH_MILLIS) {
                throw new IllegalArgumentException(
                        "integer timestamp " + millis + " is not epoch milliseconds (before 1973; epoch seconds?)");
            }
        } else if (time.isTextual()) {
            try {
                millis = java.time.OffsetDateTime.parse(time.textValue())
                        .toInstant()
                        .toEpochMilli();
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("timestamp '" + abbreviate(time.textValue())
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

    /** The payload fields (everything but device, timestamp and eventId) as canonical JSON. */
    private String canonicalPayload(ObjectNode node) throws CanonicalPayload.BadValueException {
        Map<String, JsonNode> fields = new TreeMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> field = it.next();
            String name = field.getKey();
            if (name.equals(deviceField)
                    || name.equals(timestampField)
                    || name.equals("eventId")
                    || field.getValue().isNull()) {
                continue;
            }
            if (name.equals(ItemAttributes.PK)
                    || name.equals(ItemAttributes.SK)
                    || (ttlReserved && name.equals(ItemAttributes.TTL))) {
                throw new CanonicalPayload.BadValueException(
                        RejectReason.RESERVED_ATTRIBUTE, "field '" + name + "' is reserved for the item key");
            }
            fields.put(name, field.getValue());
        }
        StringWriter out = new StringWriter();
        try (JsonGenerator gen = FACTORY.createGenerator(out)) {
            gen.writeStartObject();
            for (Map.Entry<String, JsonNode> field : fields.entrySet()) {
                if (field.getKey().isEmpty()) {
                    throw new CanonicalPayload.BadValueException(
                            RejectReason.BAD_FIELD_NAME, "a field has an empty name");
                }
                gen.writeFieldName(field.getKey());
                writeCanonical(gen, field.getValue());
            }
            gen.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("writing to a StringWriter failed", e);
        }
        return out.toString();
    }

    private static void writeCanonical(JsonGenerator gen, JsonNode value)
            throws IOException, CanonicalPayload.BadValueException {
        if (value.isObject()) {
            Map<String, JsonNode> sorted = new TreeMap<>();
            value.fields().forEachRemaining(e -> {
                if (!e.getValue().isNull()) {
                    sorted.put(e.getKey(), e.getValue());
                }
            });
            gen.writeStartObject();
            for (Map.Entry<String, JsonNode> e : sorted.entrySet()) {
                if (e.getKey().isEmpty()) {
                    throw new CanonicalPayload.BadValueException(
                            RejectReason.BAD_FIELD_NAME, "a nested field has an empty name");
                }
                gen.writeFieldName(e.getKey());
                writeCanonical(gen, e.getValue());
            }
            gen.writeEndObject();
        } else if (value.isArray()) {
            gen.writeStartArray();
            for (JsonNode element : value) {
                if (!element.isNull()) {
                    writeCanonical(gen, element);
                }
            }
            gen.writeEndArray();
        } else if (value.isNumber()) {
            gen.writeNumber(DynamoDbNumbers.check(value.decimalValue()));
        } else if (value.isBoolean()) {
            gen.writeBoolean(value.booleanValue());
        } else {
            gen.writeString(value.asText());
        }
    }

    private static byte[] bytes(JsonNode node) {
        return node.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String firstLine(String message) {
        int nl = message.indexOf('\n');
        return abbreviate(nl < 0 ? message : message.substring(0, nl));
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    ReadingParser.Result parse(byte[] raw, String origin, long nowMillis) {
        ReadingParser.Result result = new ReadingParser.Result();
        parse(raw, origin, nowMillis, result.readings::add, result.rejections::add);
        return result;
    }
}
