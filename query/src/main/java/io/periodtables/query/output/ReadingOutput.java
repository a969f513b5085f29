package io.periodtables.query.output;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.query.StoredReading;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * How the CLI prints readings: JSON lines (one object per reading, fixed keys, payload nested
 * so no payload field can collide with them), a table for people, or CSV with one column per
 * payload attribute for spreadsheets. JSON and table print each reading as it comes; CSV
 * prints at the end, once it knows every attribute.
 */
public enum ReadingOutput {
    /**
     * {@code {"deviceId":…,"timestamp":…,"table":…,"shard":…,"sk":…,"ttl":…,"payload":{…}}} per line;
     * no {@code shard} for a reading from the latest table, no {@code ttl} when the item has none.
     */
    JSON,
    /**
     * Columns timestamp, device, table, shard ({@code -} for a reading from the latest table),
     * payload (compact JSON).
     */
    TABLE,
    /** Header {@code timestamp,deviceId,table,shard,sk,ttl,<payload attributes, sorted>}; RFC 4180 quoting. */
    CSV;

    private static final JsonFactory JSON_FACTORY = new JsonFactory();

    /**
     * A printer of readings to {@code out}; {@code tableWidth} aligns the table column; call {@link Printer#finish()}
     * at the end.
     */
    public Printer printer(PrintStream out, int tableWidth) {
        switch (this) {
            case JSON:
                return new Printer(reading -> out.println(json(reading)));
            case TABLE:
                out.println(String.format(
                        Locale.ROOT,
                        "%-24s  %-16s  %-" + tableWidth + "s  %5s  %s",
                        "timestamp",
                        "device",
                        "table",
                        "shard",
                        "payload"));
                return new Printer(reading -> out.println(String.format(
                        Locale.ROOT,
                        "%-24s  %-16s  %-" + tableWidth + "s  %5s  %s",
                        WriteSharding.sortKeyInstant(reading.eventTime().toEpochMilli()),
                        reading.deviceId(),
                        reading.table(),
                        reading.hasShard() ? Integer.toString(reading.shard()) : "-",
                        reading.payloadJson())));
            default:
                List<StoredReading> all = new ArrayList<>();
                return new Printer(all::add) {
                    @Override
                    public void finish() {
                        printCsv(all, out);
                    }
                };
        }
    }

    /** Takes readings one by one; {@link #finish()} completes the output. */
    public static class Printer implements java.util.function.Consumer<StoredReading> {
        private final java.util.function.Consumer<StoredReading> each;

        Printer(java.util.function.Consumer<StoredReading> each) {
            this.each = each;
        }

        @Override
        public void accept(StoredReading reading) {
            each.accept(reading);
        }

        public void finish() {}
    }

    static String json(StoredReading reading) {
        StringWriter text = new StringWriter();
        try (JsonGenerator g = JSON_FACTORY.createGenerator(text)) {
            g.writeStartObject();
            g.writeStringField("deviceId", reading.deviceId());
            g.writeStringField(
                    "timestamp",
                    WriteSharding.sortKeyInstant(reading.eventTime().toEpochMilli()));
            g.writeStringField("table", reading.table());
            if (reading.hasShard()) {
                g.writeNumberField("shard", reading.shard());
            }
            g.writeStringField("sk", reading.sk());
            if (reading.ttl() != null) {
                g.writeNumberField("ttl", reading.ttl());
            }
            g.writeFieldName("payload");
            g.writeRawValue(ItemAttributes.toJson(reading.payload()));
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    /** The shard, or empty for a reading from the latest table. */
    private static String shard(StoredReading reading) {
        return reading.hasShard() ? Integer.toString(reading.shard()) : "";
    }

    private static void printCsv(List<StoredReading> readings, PrintStream out) {
        Set<String> attributes = new TreeSet<>();
        readings.forEach(r -> attributes.addAll(r.payload().keySet()));
        List<String> header = new ArrayList<>(List.of("timestamp", "deviceId", "table", "shard", "sk", "ttl"));
        header.addAll(attributes);
        out.println(csvLine(header));
        for (StoredReading r : readings) {
            List<String> row = new ArrayList<>(List.of(
                    WriteSharding.sortKeyInstant(r.eventTime().toEpochMilli()),
                    r.deviceId(),
                    r.table(),
                    shard(r),
                    r.sk(),
                    r.ttl() == null ? "" : r.ttl().toString()));
            for (String attribute : attributes) {
                row.add(cell(r.payload().get(attribute), attribute));
            }
            out.println(csvLine(row));
        }
    }

    /** A number or string as itself, a boolean as true/false, null as empty, a list, map or binary as JSON. */
    private static String cell(AttributeValue value, String name) {
        if (value == null || Boolean.TRUE.equals(value.nul())) {
            return "";
        }
        if (value.n() != null) {
            return value.n();
        }
        if (value.s() != null) {
            return value.s();
        }
        if (value.bool() != null) {
            return value.bool().toString();
        }
        String json = ItemAttributes.toJson(Map.of(name, value));
        return json.substring(json.indexOf(':') + 1, json.length() - 1);
    }

    static String csvLine(List<String> cells) {
        StringBuilder line = new StringBuilder();
        for (String cell : cells) {
            if (line.length() > 0) {
                line.append(',');
            }
            if (cell.contains(",") || cell.contains("\"") || cell.contains("\n") || cell.contains("\r")) {
                line.append('"').append(cell.replace("\"", "\"\"")).append('"');
            } else {
                line.append(cell);
            }
        }
        return line.toString();
    }
}
