package io.periodtables.sink;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * JSON to DynamoDB attribute values and back, by DESIGN.md's mapping: number to N (the number's
 * text as written), string to S, boolean to BOOL, object to M, array to L; a null object field
 * is omitted, a null array element becomes NUL (dropping it would shift the positions of the
 * others). Streaming, with one shared thread-safe {@link JsonFactory}.
 */
final class JsonAttributes {

    private static final JsonFactory JSON = new JsonFactory();

    private JsonAttributes() {}

    /** The attributes of a JSON object text; fails on anything but one object. */
    static Map<String, AttributeValue> ofObject(String json) throws IOException {
        try (JsonParser parser = JSON.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("expected a JSON object, found " + parser.currentToken());
            }
            Map<String, AttributeValue> attributes = readObject(parser);
            if (parser.nextToken() != null) {
                throw new IOException("unexpected " + parser.currentToken() + " after the JSON object");
            }
            return attributes;
        }
    }

    private static Map<String, AttributeValue> readObject(JsonParser parser) throws IOException {
        Map<String, AttributeValue> map = new HashMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            AttributeValue value = readValue(parser, parser.nextToken());
            if (value != null) {
                map.put(name, value);
            } else {
                map.remove(name);
            }
        }
        return map;
    }

    private static List<AttributeValue> readArray(JsonParser parser) throws IOException {
        List<AttributeValue> list = new ArrayList<>();
        JsonToken token;
        while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
            AttributeValue value = readValue(parser, token);
            list.add(value != null ? value : AttributeValue.fromNul(true));
        }
        return list;
    }

    /** The value at {@code token}, or null for JSON null. */
    private static AttributeValue readValue(JsonParser parser, JsonToken token) throws IOException {
        if (token == null) {
            throw new IOException("unexpected end of JSON");
        }
        switch (token) {
            case VALUE_STRING:
                return AttributeValue.fromS(parser.getText());
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return AttributeValue.fromN(parser.getText());
            case VALUE_TRUE:
                return AttributeValue.fromBool(true);
            case VALUE_FALSE:
                return AttributeValue.fromBool(false);
            case VALUE_NULL:
                return null;
            case START_OBJECT:
                return AttributeValue.fromM(readObject(parser));
            case START_ARRAY:
                return AttributeValue.fromL(readArray(parser));
            default:
                throw new IOException("unexpected JSON token " + token);
        }
    }

    /**
     * An item as a plain JSON object with sorted keys (stable text for the same item): S as
     * string, N as number, BOOL, NUL as null, M as object, L as array, B as base64.
     */
    static String render(Map<String, AttributeValue> item) {
        StringWriter text = new StringWriter();
        try (JsonGenerator generator = JSON.createGenerator(text)) {
            writeMap(generator, item);
        } catch (IOException e) {
            throw new IllegalStateException("cannot render item as JSON", e);
        }
        return text.toString();
    }

    private static void writeMap(JsonGenerator generator, Map<String, AttributeValue> map) throws IOException {
        generator.writeStartObject();
        for (Map.Entry<String, AttributeValue> e : new TreeMap<>(map).entrySet()) {
            generator.writeFieldName(e.getKey());
            writeValue(generator, e.getValue());
        }
        generator.writeEndObject();
    }

    private static void writeValue(JsonGenerator generator, AttributeValue value) throws IOException {
        switch (value.type()) {
            case S -> generator.writeString(value.s());
            case N -> generator.writeNumber(value.n());
            case B -> generator.writeString(Base64.getEncoder().encodeToString(value.b().asByteArrayUnsafe()));
            case BOOL -> generator.writeBoolean(value.bool());
            case NUL -> generator.writeNull();
            case M -> writeMap(generator, value.m());
            case L -> {
                generator.writeStartArray();
                for (AttributeValue element : value.l()) {
                    writeValue(generator, element);
                }
                generator.writeEndArray();
            }
            // Sets: the sink never builds them.
            default -> generator.writeString(value.toString());
        }
    }
}
