package io.periodtables.core.item;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.annotation.PublicEvolving;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The attributes of the items period-tables writes, by DESIGN.md: the key attributes {@link #PK}
 * and {@link #SK} of every table, the {@link #TTL} attribute, and the payload's JSON to DynamoDB
 * mapping — number to N (the number's text as written), string to S, boolean to BOOL, object to
 * M, array to L; a null object field is omitted, a null array element becomes NUL (dropping it
 * would shift the positions of the others). The sink stores payloads with it, the query's plan
 * builds a sample's item with it, and both render stored items back to JSON with
 * {@link #toJson}. Stateless and thread-safe.
 */
@PublicEvolving
public final class ItemAttributes {

    /** The partition key attribute (S, HASH) of every table period-tables writes. */
    public static final String PK = "pk";

    /** The sort key attribute (S, RANGE) of every table period-tables writes. */
    public static final String SK = "sk";

    /** The expiry attribute (N, epoch seconds) of period and late table items when {@code tables.ttl} is set. */
    public static final String TTL = "ttl";

    private static final JsonFactory JSON = new SharedBufferJsonFactory();

    private ItemAttributes() {}

    /** The attributes of a JSON object text; {@link IOException} for anything but one object. */
    public static Map<String, AttributeValue> ofJsonObject(String json) throws IOException {
        try (JsonParser parser = JSON.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("expected a JSON object, found " + parser.currentToken());
            }
            Map<String, AttributeValue> attributes = readObject(parser);
            checkEnd(parser);
            return attributes;
        }
    }

    /**
     * The attributes of each object of a JSON text that is one object or an array of objects (an
     * input record of DESIGN.md); {@link IOException} for anything else.
     */
    public static List<Map<String, AttributeValue>> ofJsonObjects(String json) throws IOException {
        try (JsonParser parser = JSON.createParser(json)) {
            JsonToken first = parser.nextToken();
            List<Map<String, AttributeValue>> objects = new ArrayList<>();
            if (first == JsonToken.START_OBJECT) {
                objects.add(readObject(parser));
            } else if (first == JsonToken.START_ARRAY) {
                JsonToken token;
                while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
                    if (token != JsonToken.START_OBJECT) {
                        throw new IOException("expected an array of JSON objects, found " + token + " in it");
                    }
                    objects.add(readObject(parser));
                }
            } else {
                throw new IOException("expected a JSON object or an array of them, found " + first);
            }
            checkEnd(parser);
            return objects;
        }
    }

    private static void checkEnd(JsonParser parser) throws IOException {
        if (parser.nextToken() != null) {
            throw new IOException("unexpected " + parser.currentToken() + " after the JSON value");
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
     * Attributes as a plain JSON object with sorted keys, so the same item always renders the
     * same text: S as string, N as number in plain notation, BOOL, NUL as null, M as object, L as array, B as
     * base64, sets as arrays.
     */
    public static String toJson(Map<String, AttributeValue> attributes) {
        StringWriter text = new StringWriter();
        try (JsonGenerator generator = JSON.createGenerator(text)) {
            writeMap(generator, attributes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot render attributes as JSON", e);
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
            case N -> generator.writeNumber(plain(value.n()));
            case B -> writeBinary(generator, value.b());
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
            case SS -> {
                generator.writeStartArray();
                for (String s : value.ss()) {
                    generator.writeString(s);
                }
                generator.writeEndArray();
            }
            case NS -> {
                generator.writeStartArray();
                for (String n : value.ns()) {
                    generator.writeNumber(plain(n));
                }
                generator.writeEndArray();
            }
            case BS -> {
                generator.writeStartArray();
                for (SdkBytes b : value.bs()) {
                    writeBinary(generator, b);
                }
                generator.writeEndArray();
            }
            default -> throw new IllegalArgumentException("attribute value of unknown type: " + value);
        }
    }

    /**
     * A number as people write it: the canonical payload keeps {@code 30.0} as {@code 3E+1} (its
     * text feeds the sort-key hash and cannot change), JSON shows {@code 30}; the value is the same.
     * A number whose plain form would take more than {@value #PLAIN_MAX} characters ({@code 1e200})
     * keeps its exponent.
     */
    private static String plain(String number) {
        if (number.indexOf('E') < 0 && number.indexOf('e') < 0) {
            return number;
        }
        BigDecimal value = new BigDecimal(number);
        // digits of the plain form: the unscaled value's, plus zeros added left or right of them
        long length = value.precision() + Math.abs((long) value.scale());
        return length <= PLAIN_MAX ? value.toPlainString() : number;
    }

    static final int PLAIN_MAX = 48;

    private static void writeBinary(JsonGenerator generator, SdkBytes bytes) throws IOException {
        generator.writeString(Base64.getEncoder().encodeToString(bytes.asByteArrayUnsafe()));
    }
}
