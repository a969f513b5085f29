package io.periodtables.query;

import io.periodtables.conf.ConfigKeys;
import io.periodtables.conf.PeriodTablesConfig;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * The size, by DynamoDB's rules, of the item the sink would store for a sample JSON reading:
 * {@code pk} (the device id plus the longest shard suffix), {@code sk} (33 characters),
 * {@code ttl} when {@code tables.ttl} is set (sized as a 10-digit number with no trailing
 * zeros, the largest it can be), and every payload field (all fields but the
 * device, timestamp and {@code eventId} fields; null fields are not stored).
 *
 * <p>The rules are the sink's ({@code io.periodtables.sink.ItemSize}, which is internal to
 * the sink, and query depends on {@code conf} only): names and strings by UTF-8 bytes, numbers
 * one byte per two significant digits plus one (plus one when negative), booleans and nulls one
 * byte, maps and lists three bytes plus one per element plus their contents. A test in this
 * module checks both give the same sizes.
 */
final class ItemSizeEstimate {

    /** {@code 2026-11-22T13:45:01.123Z#9f3a2c1b}: the sort key of every reading has this length. */
    static final int SK_LENGTH = 33;

    /** A TTL in epoch seconds has 10 digits until the year 2286; the largest size such a number can have. */
    private static final String LARGEST_TTL = "1999999999";

    private ItemSizeEstimate() {}

    /**
     * The item size of the sample reading (a JSON object, or an array of them: the largest),
     * stored with {@code shards} write shards.
     */
    static long ofSample(String json, PeriodTablesConfig config, int shards) throws IOException {
        try (JsonParser parser = ItemJson.JSON.createParser(json)) {
            JsonToken first = parser.nextToken();
            long largest = 0;
            if (first == JsonToken.START_ARRAY) {
                while (parser.nextToken() == JsonToken.START_OBJECT) {
                    largest = Math.max(largest, reading(parser, config, shards));
                }
            } else if (first == JsonToken.START_OBJECT) {
                largest = reading(parser, config, shards);
            }
            if (largest == 0) {
                throw new IOException("expected a JSON reading object (or an array of them)");
            }
            return largest;
        }
    }

    private static long reading(JsonParser parser, PeriodTablesConfig config, int shards) throws IOException {
        String deviceField = config.get(ConfigKeys.INPUT_DEVICE_FIELD);
        String timestampField = config.get(ConfigKeys.INPUT_TIMESTAMP_FIELD);
        String deviceId = null;
        long payload = 0;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken token = parser.nextToken();
            if (name.equals(deviceField) && token == JsonToken.VALUE_STRING) {
                deviceId = parser.getText();
            } else if (name.equals(timestampField) || name.equals("eventId")) {
                parser.skipChildren();
            } else if (token != JsonToken.VALUE_NULL) {
                payload += utf8Length(name) + valueSize(parser, token);
            }
        }
        if (deviceId == null) {
            throw new IOException("the sample reading has no string field '" + deviceField + "' (input.device-field)");
        }
        long pk = 2 + utf8Length(deviceId) + (shards > 1 ? 1 + String.valueOf(shards - 1).length() : 0);
        long sk = 2 + SK_LENGTH;
        long ttl = config.ttl().isPresent() ? 3 + numberSize(LARGEST_TTL) : 0;
        return pk + sk + ttl + payload;
    }

    private static long valueSize(JsonParser parser, JsonToken token) throws IOException {
        switch (token) {
            case VALUE_STRING:
                return utf8Length(parser.getText());
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return numberSize(parser.getText());
            case VALUE_TRUE:
            case VALUE_FALSE:
            case VALUE_NULL:
                return 1;
            case START_OBJECT:
                long map = 3;
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    JsonToken value = parser.nextToken();
                    if (value != JsonToken.VALUE_NULL) {
                        map += 1 + utf8Length(name) + valueSize(parser, value);
                    }
                }
                return map;
            case START_ARRAY:
                long list = 3;
                JsonToken element;
                while ((element = parser.nextToken()) != JsonToken.END_ARRAY) {
                    list += 1 + valueSize(parser, element);
                }
                return list;
            default:
                throw new IOException("unexpected JSON token " + token);
        }
    }

    /** Base-100 digit pairs aligned on the decimal point, one byte of exponent, one more when negative. */
    static long numberSize(String number) {
        BigDecimal value = new BigDecimal(number).stripTrailingZeros();
        if (value.signum() == 0) {
            return 1;
        }
        int digits = value.precision();
        int pointPosition = digits - value.scale();
        int alignedDigits = digits + (Math.floorMod(pointPosition, 2) == 1 ? 1 : 0);
        return (alignedDigits + 1) / 2 + 1 + (value.signum() < 0 ? 1 : 0);
    }

    private static long utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
