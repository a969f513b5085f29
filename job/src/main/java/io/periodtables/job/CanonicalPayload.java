package io.periodtables.job;

import io.periodtables.job.JsonFields.Field;
import io.periodtables.job.JsonFields.JsonArray;
import io.periodtables.job.JsonFields.JsonObject;
import io.periodtables.model.RejectReason;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.io.StringWriter;
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
 * first, in input order), an empty nested key ({@code bad-field-name}), a number outside
 * DynamoDB's range ({@code bad-number}).
 */
final class CanonicalPayload {

    private static final Comparator<Field> BY_NAME = Comparator.comparing(Field::name);

    private final JsonFactory factory;
    private final Set<String> excluded;
    private final Set<String> reserved;

    /**
     * @param excluded top-level keys that are not payload (device, timestamp, eventId)
     * @param reserved top-level keys the item itself uses ({@code pk}, {@code sk}, maybe {@code ttl})
     */
    CanonicalPayload(JsonFactory factory, Set<String> excluded, Set<String> reserved) {
        this.factory = factory;
        this.excluded = excluded;
        this.reserved = reserved;
    }

    /** The canonical payload of a reading's top-level fields (in input order, as read). */
    String write(List<Field> fields) throws BadValueException {
        checkReserved(fields);
        StringWriter out = new StringWriter(64);
        try (JsonGenerator gen = factory.createGenerator(out)) {
            writeObject(gen, fields, true);
        } catch (IOException e) {
            throw new IllegalStateException("writing to a StringWriter failed", e);
        }
        return out.toString();
    }

    /**
     * A reserved key fails where a Jackson tree would meet it: in the order of each key's first
     * appearance, counting only keys whose last value is not null.
     */
    private void checkReserved(List<Field> fields) throws BadValueException {
        for (int i = 0; i < fields.size(); i++) {
            String name = fields.get(i).name();
            if (reserved.contains(name) && !excluded.contains(name) && firstAppearance(fields, i) && lastValue(fields, i) != null) {
                throw new BadValueException(RejectReason.RESERVED_ATTRIBUTE, "field '" + name + "' is reserved for the item key");
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

    private void writeObject(JsonGenerator gen, List<Field> fields, boolean top) throws IOException, BadValueException {
        List<Field> sorted = sortedCopy(fields);
        gen.writeStartObject();
        int n = sorted.size();
        for (int i = 0; i < n; i++) {
            Field field = sorted.get(i);
            if (i + 1 < n && sorted.get(i + 1).name().equals(field.name())) {
                continue; // a later duplicate (the sort is stable) replaces this one
            }
            if (field.value() == null || (top && excluded.contains(field.name()))) {
                continue;
            }
            if (!top && field.name().isEmpty()) {
                throw new BadValueException(RejectReason.BAD_FIELD_NAME, "a nested field has an empty name");
            }
            gen.writeFieldName(field.name());
            writeValue(gen, field.value());
        }
        gen.writeEndObject();
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

    private void writeValue(JsonGenerator gen, Object value) throws IOException, BadValueException {
        if (value instanceof String s) {
            gen.writeString(s);
        } else if (value instanceof Long l) {
            gen.writeNumber(l); // any long is within DynamoDB's range
        } else if (value instanceof JsonFields.Decimal d) {
            gen.writeNumber(d.text()); // in range by construction
        } else if (value instanceof BigDecimal d) {
            gen.writeNumber(DynamoDbNumbers.check(d));
        } else if (value instanceof BigInteger i) {
            gen.writeNumber(DynamoDbNumbers.check(new BigDecimal(i)));
        } else if (value instanceof Boolean b) {
            gen.writeBoolean(b);
        } else if (value instanceof JsonObject o) {
            writeObject(gen, o.fields(), false);
        } else if (value instanceof JsonArray a) {
            gen.writeStartArray();
            for (Object element : a.elements()) {
                if (element != null) {
                    writeValue(gen, element);
                }
            }
            gen.writeEndArray();
        } else {
            throw new IllegalStateException("not a JSON value: " + value);
        }
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
