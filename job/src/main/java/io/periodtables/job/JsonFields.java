package io.periodtables.job;

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
 * {@link BigDecimal} without trailing zeros ({@link BigDecimal#ZERO} for any zero).
 *
 * <p>A value is {@code null} (JSON null), a {@link String}, {@link Boolean}, {@link Long},
 * {@link java.math.BigInteger}, {@link BigDecimal}, {@link JsonObject} or {@link JsonArray}.
 */
final class JsonFields {

    private JsonFields() {}

    /** One field of an object, as it appeared in the input. */
    record Field(String name, Object value) {}

    /** An object: its fields in input order, duplicates included. */
    record JsonObject(List<Field> fields) {}

    /** An array: its elements in order, JSON nulls included (as {@code null}). */
    record JsonArray(List<Object> elements) {}

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
                        ? parser.getBigIntegerValue() : (Object) parser.getLongValue();
            case VALUE_NUMBER_FLOAT:
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
