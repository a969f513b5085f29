package io.periodtables.query;

import io.periodtables.conf.ItemAttributes;
import io.periodtables.conf.WriteSharding;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * How the CLI prints readings: JSON lines (one object per reading, fixed keys, payload nested
 * so no payload field can collide with them) or a table for people.
 */
enum ReadingOutput {
    /** {@code {"deviceId":…,"timestamp":…,"table":…,"shard":…,"sk":…,"ttl":…,"payload":{…}}} per line. */
    JSON,
    /** Columns timestamp, table, shard, payload (compact JSON). */
    TABLE;

    private static final JsonFactory JSON_FACTORY = new JsonFactory();

    static ReadingOutput parse(String text) {
        switch (text.toLowerCase(Locale.ROOT)) {
            case "json":
            case "jsonl":
                return JSON;
            case "table":
                return TABLE;
            default:
                throw new IllegalArgumentException("--format '" + text + "': expected json or table");
        }
    }

    /** A printer of readings to {@code out}; {@code tableWidth} aligns the table column. */
    Consumer<StoredReading> printer(PrintStream out, int tableWidth) {
        if (this == JSON) {
            return reading -> out.println(json(reading));
        }
        out.println(String.format(Locale.ROOT, "%-24s  %-" + tableWidth + "s  %5s  %s", "timestamp", "table", "shard",
                "payload"));
        return reading -> out.println(String.format(Locale.ROOT, "%-24s  %-" + tableWidth + "s  %5d  %s",
                WriteSharding.sortKeyInstant(reading.eventTime().toEpochMilli()), reading.table(), reading.shard(),
                reading.payloadJson()));
    }

    static String json(StoredReading reading) {
        StringWriter text = new StringWriter();
        try (JsonGenerator g = JSON_FACTORY.createGenerator(text)) {
            g.writeStartObject();
            g.writeStringField("deviceId", reading.deviceId());
            g.writeStringField("timestamp", WriteSharding.sortKeyInstant(reading.eventTime().toEpochMilli()));
            g.writeStringField("table", reading.table());
            g.writeNumberField("shard", reading.shard());
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
}
