package io.periodtables.core.item;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The size of an item by DynamoDB's rules, the one place they are written: the UTF-8 bytes of
 * each attribute name plus its value; strings by UTF-8 bytes, binaries by length, numbers one
 * byte per two significant digits plus one (plus one more when negative), booleans and nulls one
 * byte, lists and maps three bytes of overhead plus one byte per element plus their contents.
 * The sink checks every item against {@link #MAX_ITEM_BYTES} with it; the query's plan sizes a
 * sample reading's item with it.
 */
@PublicEvolving
public final class DynamoDbItemSize {

    /** DynamoDB's item size limit: 400 KB, attribute names included. */
    public static final long MAX_ITEM_BYTES = 400 * 1024;

    private DynamoDbItemSize() {}

    /** The size of {@code item} in bytes, as DynamoDB counts it against its limit and capacity units. */
    public static long of(Map<String, AttributeValue> item) {
        long size = 0;
        for (Map.Entry<String, AttributeValue> attribute : item.entrySet()) {
            size += utf8Length(attribute.getKey()) + valueSize(attribute.getValue());
        }
        return size;
    }

    static long valueSize(AttributeValue value) {
        switch (value.type()) {
            case S:
                return utf8Length(value.s());
            case N:
                return numberSize(value.n());
            case B:
                return value.b().asByteArrayUnsafe().length;
            case BOOL:
            case NUL:
                return 1;
            case M:
                return 3 + mapContentSize(value.m());
            case L:
                return 3 + listContentSize(value.l());
            case SS:
                return value.ss().stream()
                        .mapToLong(DynamoDbItemSize::utf8Length)
                        .sum();
            case NS:
                return value.ns().stream()
                        .mapToLong(DynamoDbItemSize::numberSize)
                        .sum();
            case BS:
                return value.bs().stream()
                        .mapToLong(b -> b.asByteArrayUnsafe().length)
                        .sum();
            default:
                throw new IllegalArgumentException("attribute value of unknown type: " + value);
        }
    }

    private static long mapContentSize(Map<String, AttributeValue> map) {
        long size = 0;
        for (Map.Entry<String, AttributeValue> e : map.entrySet()) {
            size += 1 + utf8Length(e.getKey()) + valueSize(e.getValue());
        }
        return size;
    }

    private static long listContentSize(List<AttributeValue> list) {
        long size = 0;
        for (AttributeValue element : list) {
            size += 1 + valueSize(element);
        }
        return size;
    }

    /**
     * DynamoDB stores numbers as base-100 digit pairs aligned on the decimal point, plus one byte
     * of exponent, plus a terminator for negative numbers.
     */
    static long numberSize(String number) {
        long plain = plainNumberSize(number);
        if (plain >= 0) {
            return plain;
        }
        BigDecimal value;
        try {
            value = new BigDecimal(number).stripTrailingZeros();
        } catch (NumberFormatException e) {
            // DynamoDB will refuse it anyway; its text length is a safe over-estimate.
            return number.length();
        }
        if (value.signum() == 0) {
            return 1;
        }
        int digits = value.precision();
        int pointPosition = digits - value.scale();
        int alignedDigits = digits + (Math.floorMod(pointPosition, 2) == 1 ? 1 : 0);
        return (alignedDigits + 1) / 2 + 1 + (value.signum() < 0 ? 1 : 0);
    }

    /**
     * {@link #numberSize} of a number in plain notation ({@code -?digits(.digits)?}, as JSON
     * readings usually carry them) read from its digits, or -1 for any other text. The
     * significant digits run from the first to the last non-zero digit; the decimal point sits
     * {@code integerDigits - first} digits after the first of them.
     */
    private static long plainNumberSize(String number) {
        int n = number.length();
        int start = n > 0 && number.charAt(0) == '-' ? 1 : 0;
        int point = -1;
        int first = -1;
        int last = -1;
        int digits = 0;
        for (int i = start; i < n; i++) {
            char c = number.charAt(i);
            if (c == '.' && point < 0 && digits > 0) {
                point = digits;
            } else if (c >= '0' && c <= '9') {
                if (c != '0') {
                    if (first < 0) {
                        first = digits;
                    }
                    last = digits;
                }
                digits++;
            } else {
                return -1;
            }
        }
        if (digits == 0 || point == digits) {
            return -1; // "", "-", "5.": left to BigDecimal
        }
        if (first < 0) {
            return 1; // zero
        }
        int integerDigits = point < 0 ? digits : point;
        int precision = last - first + 1;
        int alignedDigits = precision + (Math.floorMod(integerDigits - first, 2) == 1 ? 1 : 0);
        return (alignedDigits + 1) / 2 + 1 + (start == 1 ? 1 : 0);
    }

    /** UTF-8 length of {@code s} without encoding it. */
    static long utf8Length(String s) {
        long bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
