package io.periodtables.job.input;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads JSON values from a streaming {@link JsonParser} into the few shapes {@link ReadingParser}
 * needs: an object as its fields in input order (duplicates kept; the last one wins, as in a
 * Jackson tree), an array as its elements, and scalars as plain Java values. It reads every
 * number the way the job's earlier tree parsing did, so stored payloads keep their exact text:
 * integers exactly ({@link Long} or {@link java.math.BigInteger}), other numbers as a
 * {@link BigDecimal} without trailing zeros ({@link BigDecimal#ZERO} for any zero) — or, when
 * that decimal's text can be read off the input's digits (plain notation, the usual reading), as
 * a {@link Decimal} holding exactly that text, with no {@link BigDecimal} made.
 *
 * <p>A value is {@code null} (JSON null), a {@link String}, {@link Boolean}, {@link Long},
 * {@link java.math.BigInteger}, {@link BigDecimal}, {@link Decimal}, {@link JsonObject} or
 * {@link JsonArray}.
 */
public final class JsonFields {

    private JsonFields() {}

    /** One field of an object, as it appeared in the input. */
    record Field(String name, Object value) {}

    /** An object: its fields in input order, duplicates included. */
    record JsonObject(List<Field> fields) {}

    /** An array: its elements in order, JSON nulls included (as {@code null}). */
    record JsonArray(List<Object> elements) {}

    /**
     * A non-integer number as {@code BigDecimal.toString()} of its value without trailing zeros
     * would write it, and within DynamoDB's number range.
     */
    record Decimal(String text) {}

    /** Reads the fields of the object whose START_OBJECT the parser is on, through its END_OBJECT. */
    static List<Field> readObject(JsonParser parser) throws IOException {
        List<Field> fields = new ArrayList<>();
        String name;
        while ((name = parser.nextFieldName()) != null) {
            fields.add(new Field(name, readValue(parser, parser.nextToken())));
        }
        return fields;
    }

    /** Reads the value that starts at {@code token}, through its last token. */
    static Object readValue(JsonParser parser, JsonToken token) throws IOException {
        switch (token) {
            case VALUE_STRING:
                return parser.getText();
            case VALUE_NUMBER_INT:
                return parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                        ? parser.getBigIntegerValue()
                        : (Object) parser.getLongValue();
            case VALUE_NUMBER_FLOAT:
                String plain = plainDecimal(parser.getText());
                if (plain != null) {
                    return new Decimal(plain);
                }
                BigDecimal decimal = parser.getDecimalValue();
                return decimal.signum() == 0 ? BigDecimal.ZERO : decimal.stripTrailingZeros();
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            case START_OBJECT:
                return new JsonObject(readObject(parser));
            case START_ARRAY:
                List<Object> elements = new ArrayList<>();
                JsonToken next;
                while ((next = parser.nextToken()) != JsonToken.END_ARRAY) {
                    elements.add(readValue(parser, next));
                }
                return new JsonArray(elements);
            default:
                throw new IllegalStateException("a value cannot start with " + token);
        }
    }

    /**
     * The text of {@code number} without trailing zeros, as {@link BigDecimal#toString()} writes
     * it, when that is plain notation read off the digits: {@code -?I.F} with at most 38 digits
     * (so within DynamoDB's range), where dropping F's trailing zeros leaves either some fraction
     * (and at most five zeros after the point before the first significant digit, else BigDecimal
     * switches to an exponent) or an integer not ending in zero (else the exponent is positive).
     * Null for anything else, including exponents; zero is {@code "0"}.
     */
    static String plainDecimal(String number) {
        int n = number.length();
        int start = number.startsWith("-") ? 1 : 0;
        int point = number.indexOf('.', start);
        if (point <= start || point == n - 1 || n - start > 39 || (number.charAt(start) == '0' && point > start + 1)) {
            return null;
        }
        for (int i = start; i < n; i++) {
            char c = number.charAt(i);
            if ((c < '0' || c > '9') && i != point) {
                return null;
            }
        }
        int end = n;
        while (end > point + 1 && number.charAt(end - 1) == '0') {
            end--;
        }
        boolean zeroInteger = point == start + 1 && number.charAt(start) == '0';
        if (end == point + 1) {
            // no fraction left: the integer, unless zero or ending in zero
            if (zeroInteger) {
                return "0";
            }
            return number.charAt(point - 1) == '0' ? null : number.substring(0, point);
        }
        if (zeroInteger && point + 6 < end && number.startsWith("000000", point + 1)) {
            return null;
        }
        return end == n ? number : number.substring(0, end);
    }

    /** The value's kind as Jackson's tree names it (JsonNodeType), for rejection messages. */
    static String nodeType(Object value) {
        if (value == null) {
            return "NULL";
        } else if (value instanceof String) {
            return "STRING";
        } else if (value instanceof Boolean) {
            return "BOOLEAN";
        } else if (value instanceof JsonObject) {
            return "OBJECT";
        } else if (value instanceof JsonArray) {
            return "ARRAY";
        }
        return "NUMBER";
    }
}
