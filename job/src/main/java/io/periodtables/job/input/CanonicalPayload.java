package io.periodtables.job.input;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.periodtables.job.input.JsonFields.Field;
import io.periodtables.job.input.JsonFields.JsonArray;
import io.periodtables.job.input.JsonFields.JsonObject;
import io.periodtables.model.RejectReason;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Writes a reading's payload as canonical JSON (DESIGN.md "Input"): object keys sorted (by
 * {@link String#compareTo}), of duplicate keys the last one, JSON nulls dropped (object fields
 * and array elements), numbers as {@link JsonFields} read them, no whitespace. It refuses what
 * DynamoDB cannot store — with the first problem met in that sorted order, so the same payload
 * always gets the same reason: a reserved key at the top ({@code reserved-attribute}, checked
 * first, in input order), an empty key at any depth ({@code bad-field-name}), a number outside
 * DynamoDB's range ({@code bad-number}).
 *
 * <p>The text is what Jackson's generator writes with its default settings (strings escaped by
 * Jackson's own encoder, numbers as {@code toString}), built in one {@link StringBuilder}: a
 * generator per reading cost more than the writing itself.
 */
public final class CanonicalPayload {

    private static final Comparator<Field> BY_NAME = Comparator.comparing(Field::name);

    private static final JsonStringEncoder ESCAPES = JsonStringEncoder.getInstance();

    private final Set<String> excluded;
    private final Set<String> reserved;

    /**
     * @param excluded top-level keys that are not payload (device, timestamp, eventId)
     * @param reserved top-level keys the item itself uses ({@code pk}, {@code sk}, maybe {@code ttl})
     */
    CanonicalPayload(Set<String> excluded, Set<String> reserved) {
        this.excluded = excluded;
        this.reserved = reserved;
    }

    /** The canonical payload of a reading's top-level fields (in input order, as read). */
    String write(List<Field> fields) throws BadValueException {
        checkReserved(fields);
        StringBuilder out = new StringBuilder(64);
        writeObject(out, fields, true);
        return out.toString();
    }

    /**
     * A reserved key fails where a Jackson tree would meet it: in the order of each key's first
     * appearance, counting only keys whose last value is not null.
     */
    private void checkReserved(List<Field> fields) throws BadValueException {
        for (int i = 0; i < fields.size(); i++) {
            String name = fields.get(i).name();
            if (reserved.contains(name)
                    && !excluded.contains(name)
                    && firstAppearance(fields, i)
                    && lastValue(fields, i) != null) {
                throw new BadValueException(
                        RejectReason.RESERVED_ATTRIBUTE, "field '" + name + "' is reserved for the item key");
            }
        }
    }

    private static boolean firstAppearance(List<Field> fields, int i) {
        for (int j = 0; j < i; j++) {
            if (fields.get(j).name().equals(fields.get(i).name())) {
                return false;
            }
        }
        return true;
    }

    private static Object lastValue(List<Field> fields, int i) {
        Object value = fields.get(i).value();
        for (int j = i + 1; j < fields.size(); j++) {
            if (fields.get(j).name().equals(fields.get(i).name())) {
                value = fields.get(j).value();
            }
        }
        return value;
    }

    private void writeObject(StringBuilder out, List<Field> fields, boolean top) throws BadValueException {
        List<Field> sorted = sortedCopy(fields);
        out.append('{');
        int start = out.length();
        int n = sorted.size();
        for (int i = 0; i < n; i++) {
            Field field = sorted.get(i);
            if (i + 1 < n && sorted.get(i + 1).name().equals(field.name())) {
                continue; // a later duplicate (the sort is stable) replaces this one
            }
            if (field.value() == null || (top && excluded.contains(field.name()))) {
                continue;
            }
            if (field.name().isEmpty()) {
                // DynamoDB refuses an empty attribute name at any depth
                throw new BadValueException(
                        RejectReason.BAD_FIELD_NAME,
                        top ? "a field has an empty name" : "a nested field has an empty name");
            }
            if (out.length() > start) {
                out.append(',');
            }
            writeString(out, field.name());
            out.append(':');
            writeValue(out, field.value());
        }
        out.append('}');
    }

    /** Input order is often sorted already; then no copy is needed. */
    private static List<Field> sortedCopy(List<Field> fields) {
        for (int i = 1; i < fields.size(); i++) {
            if (fields.get(i - 1).name().compareTo(fields.get(i).name()) >= 0) {
                List<Field> sorted = new ArrayList<>(fields);
                sorted.sort(BY_NAME);
                return sorted;
            }
        }
        return fields;
    }

    private void writeValue(StringBuilder out, Object value) throws BadValueException {
        if (value instanceof String s) {
            writeString(out, s);
        } else if (value instanceof Long l) {
            out.append(l.longValue()); // any long is within DynamoDB's range
        } else if (value instanceof JsonFields.Decimal d) {
            out.append(d.text()); // in range by construction
        } else if (value instanceof BigDecimal d) {
            out.append(DynamoDbNumbers.check(d).toString());
        } else if (value instanceof BigInteger i) {
            out.append(DynamoDbNumbers.check(new BigDecimal(i)).toString());
        } else if (value instanceof Boolean b) {
            out.append(b.booleanValue());
        } else if (value instanceof JsonObject o) {
            writeObject(out, o.fields(), false);
        } else if (value instanceof JsonArray a) {
            out.append('[');
            int start = out.length();
            for (Object element : a.elements()) {
                if (element != null) {
                    if (out.length() > start) {
                        out.append(',');
                    }
                    writeValue(out, element);
                }
            }
            out.append(']');
        } else {
            throw new IllegalStateException("not a JSON value: " + value);
        }
    }

    private static void writeString(StringBuilder out, String s) {
        out.append('"');
        ESCAPES.quoteAsString(s, out);
        out.append('"');
    }

    /** A payload value DynamoDB cannot store. */
    static final class BadValueException extends Exception {
        private static final long serialVersionUID = 1L;
        final RejectReason reason;

        BadValueException(RejectReason reason, String message) {
            super(message, null, false, false);
            this.reason = reason;
        }
    }
}
