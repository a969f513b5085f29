package io.periodtables.core.item;

import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One typed column of the archive ({@code archive.columns}, docs/archive.md): a top-level payload
 * field stored in a Parquet column of its own type instead of the attributes JSON, when its value
 * fits that type exactly ({@link #value}); a value that does not fit stays in the JSON, so nothing
 * is lost and {@link #attribute} gives back a value equal to the stored one.
 */
@PublicEvolving
public record ArchiveColumn(String name, Type type) implements Serializable {

    /** Column types, by their Athena / Hive names. */
    @PublicEvolving
    public enum Type {
        DOUBLE,
        BIGINT,
        STRING,
        BOOLEAN;

        public String sqlName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The archive's own columns, which a payload field cannot be named (compared ignoring case). */
    public static final List<String> FIXED =
            List.of("device", "event_time", "event_id", "attributes", "pk", "sk", "ttl");

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    /** {@code name:type,…}, e.g. {@code temperature:double,status:string}; empty for none. */
    public static List<ArchiveColumn> parseList(String spec) {
        List<ArchiveColumn> columns = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String part : spec.split(",", -1)) {
            String entry = part.strip();
            if (entry.isEmpty() && spec.isBlank()) {
                continue;
            }
            int colon = entry.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("expected name:type, found '" + entry + "'");
            }
            String name = entry.substring(0, colon).strip();
            String type = entry.substring(colon + 1).strip().toUpperCase(Locale.ROOT);
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(
                        "column '" + name + "': a name is letters, digits and _, not starting with a digit");
            }
            String lower = name.toLowerCase(Locale.ROOT);
            if (FIXED.contains(lower)) {
                throw new IllegalArgumentException("column '" + name + "' is one of the archive's own " + FIXED);
            }
            if (!seen.add(lower)) {
                throw new IllegalArgumentException("column '" + name + "' is given twice");
            }
            Type parsed;
            try {
                parsed = Type.valueOf(type);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("column '" + name + "': type '" + type.toLowerCase(Locale.ROOT)
                        + "' is not one of double, bigint, string, boolean");
            }
            columns.add(new ArchiveColumn(name, parsed));
        }
        return List.copyOf(columns);
    }

    /**
     * The column's value of {@code attribute} ({@link Double}, {@link Long}, {@link String} or
     * {@link Boolean}), or null when it does not fit: another DynamoDB type, a number a double
     * does not hold exactly, an integer beyond a long.
     */
    @Nullable
    public Object value(@Nullable AttributeValue attribute) {
        if (attribute == null) {
            return null;
        }
        return switch (type) {
            case STRING -> attribute.type() == AttributeValue.Type.S ? attribute.s() : null;
            case BOOLEAN -> attribute.type() == AttributeValue.Type.BOOL ? attribute.bool() : null;
            case DOUBLE -> attribute.type() == AttributeValue.Type.N ? exactDouble(attribute.n()) : null;
            case BIGINT -> attribute.type() == AttributeValue.Type.N ? exactLong(attribute.n()) : null;
        };
    }

    /** The attribute of a column value: equal (as DynamoDB compares numbers) to the one it came from. */
    public AttributeValue attribute(Object value) {
        return switch (type) {
            case STRING -> AttributeValue.fromS((String) value);
            case BOOLEAN -> AttributeValue.fromBool((Boolean) value);
            case DOUBLE -> AttributeValue.fromN(plain(new BigDecimal(Double.toString((Double) value))));
            case BIGINT -> AttributeValue.fromN(Long.toString((Long) value));
        };
    }

    private static Double exactDouble(String number) {
        BigDecimal decimal = new BigDecimal(number);
        double d = decimal.doubleValue();
        return Double.isFinite(d) && new BigDecimal(Double.toString(d)).compareTo(decimal) == 0 ? d : null;
    }

    private static Long exactLong(String number) {
        try {
            return new BigDecimal(number).longValueExact();
        } catch (ArithmeticException notALong) {
            return null;
        }
    }

    private static String plain(BigDecimal value) {
        return value.signum() == 0 ? "0" : value.stripTrailingZeros().toPlainString();
    }
}
