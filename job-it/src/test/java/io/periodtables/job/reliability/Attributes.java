package io.periodtables.job.reliability;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * DynamoDB attribute values as the tests compare them: numbers in one canonical form (DynamoDB
 * may answer {@code 21.50} as {@code 21.5}), maps sorted; DESIGN.md's JSON mapping (number to N,
 * string to S, boolean to BOOL, object to M, array to L) written out independently of the sink;
 * and an estimate of DynamoDB's item size, to know which readings cannot be stored.
 */
public final class Attributes {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .build();

    private Attributes() {}

    /** The attributes of a JSON object's members, by DESIGN.md's mapping, canonical. */
    static Map<String, AttributeValue> ofJsonObject(String json) {
        try {
            Map<String, AttributeValue> out = new TreeMap<>();
            JSON.readTree(json).fields().forEachRemaining(e -> {
                if (!e.getValue().isNull()) {
                    out.put(e.getKey(), of(e.getValue()));
                }
            });
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("not a JSON object: " + json, e);
        }
    }

    private static AttributeValue of(JsonNode node) {
        if (node.isObject()) {
            Map<String, AttributeValue> map = new TreeMap<>();
            node.fields().forEachRemaining(e -> {
                if (!e.getValue().isNull()) {
                    map.put(e.getKey(), of(e.getValue()));
                }
            });
            return AttributeValue.fromM(map);
        }
        if (node.isArray()) {
            List<AttributeValue> list = new ArrayList<>();
            node.forEach(element -> list.add(element.isNull() ? AttributeValue.fromNul(true) : of(element)));
            return AttributeValue.fromL(list);
        }
        if (node.isNumber()) {
            return number(node.decimalValue().toString());
        }
        if (node.isBoolean()) {
            return AttributeValue.fromBool(node.booleanValue());
        }
        return AttributeValue.fromS(node.asText());
    }

    static AttributeValue number(String text) {
        return AttributeValue.fromN(new BigDecimal(text).stripTrailingZeros().toPlainString());
    }

    /** S when {@code raw} is valid UTF-8, else B: how the rejected table keeps a raw record. */
    static AttributeValue raw(byte[] raw) {
        try {
            return AttributeValue.fromS(StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw))
                    .toString());
        } catch (CharacterCodingException e) {
            return AttributeValue.fromB(SdkBytes.fromByteArray(raw));
        }
    }

    /** The item with every number (also nested) canonical and attributes sorted: how every test compares items. */
    public static Map<String, AttributeValue> canonical(Map<String, AttributeValue> item) {
        Map<String, AttributeValue> out = new TreeMap<>();
        item.forEach((name, value) -> out.put(name, canonical(value)));
        return out;
    }

    private static AttributeValue canonical(AttributeValue value) {
        if (value.n() != null) {
            return number(value.n());
        }
        if (value.hasM()) {
            return AttributeValue.fromM(canonical(value.m()));
        }
        if (value.hasL()) {
            return AttributeValue.fromL(
                    value.l().stream().map(Attributes::canonical).toList());
        }
        return value;
    }

    /**
     * DynamoDB's item size, closely enough to tell a 390 KB item from a 410 KB one: UTF-8 names
     * and strings, about half a byte per number digit, 3 bytes plus one per element for
     * documents.
     */
    static long approximateSize(Map<String, AttributeValue> item) {
        long size = 0;
        for (Map.Entry<String, AttributeValue> e : item.entrySet()) {
            size += utf8(e.getKey()) + approximateSize(e.getValue());
        }
        return size;
    }

    private static long approximateSize(AttributeValue value) {
        if (value.s() != null) {
            return utf8(value.s());
        }
        if (value.n() != null) {
            return value.n().length() / 2 + 2;
        }
        if (value.hasM()) {
            long size = 3;
            for (Map.Entry<String, AttributeValue> e : value.m().entrySet()) {
                size += 1 + utf8(e.getKey()) + approximateSize(e.getValue());
            }
            return size;
        }
        if (value.hasL()) {
            long size = 3;
            for (AttributeValue element : value.l()) {
                size += 1 + approximateSize(element);
            }
            return size;
        }
        return 1;
    }

    private static long utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
