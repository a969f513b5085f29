package io.periodtables.query;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Stored attributes back to JSON, the inverse of the input mapping of DESIGN.md: N as the
 * number's text, S as string, BOOL, NULL as null, M as object (keys sorted, so the same item
 * always renders the same), L as array, B as base64, sets as arrays.
 */
final class ItemJson {

    static final JsonFactory JSON = new JsonFactory();

    private ItemJson() {}

    static String render(Map<String, AttributeValue> attributes) {
        StringWriter text = new StringWriter();
        try (JsonGenerator generator = JSON.createGenerator(text)) {
            writeMap(generator, attributes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot render attributes as JSON", e);
        }
        return text.toString();
    }

    static void writeMap(JsonGenerator generator, Map<String, AttributeValue> map) throws IOException {
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
            case L -> writeList(generator, value.l());
            case SS -> writeStrings(generator, value.ss());
            case NS -> {
                generator.writeStartArray();
                for (String n : value.ns()) {
                    generator.writeNumber(n);
                }
                generator.writeEndArray();
            }
            case BS -> {
                generator.writeStartArray();
                for (var b : value.bs()) {
                    generator.writeString(Base64.getEncoder().encodeToString(b.asByteArrayUnsafe()));
                }
                generator.writeEndArray();
            }
            default -> throw new IOException("attribute value of unknown type: " + value);
        }
    }

    private static void writeList(JsonGenerator generator, List<AttributeValue> list) throws IOException {
        generator.writeStartArray();
        for (AttributeValue element : list) {
            writeValue(generator, element);
        }
        generator.writeEndArray();
    }

    private static void writeStrings(JsonGenerator generator, List<String> strings) throws IOException {
        generator.writeStartArray();
        for (String s : strings) {
            generator.writeString(s);
        }
        generator.writeEndArray();
    }
}
