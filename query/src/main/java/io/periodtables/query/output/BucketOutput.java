package io.periodtables.query.output;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.periodtables.core.item.Rollups;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * How the CLI prints rollup buckets, in the formats of {@code --format}: JSON lines (one object
 * per bucket, fields nested), a table for people (one row per bucket and field), or CSV (one row
 * per bucket, six columns per field, printed at the end once every field is known). Per field:
 * count, min, max, avg (sum / count, to 16 significant digits; in the table one decimal more than
 * the field's readings), first, last; numbers as stored.
 */
public final class BucketOutput {
    private static final JsonFactory JSON_FACTORY = new JsonFactory();
    private static final List<String> STATS = List.of("count", "min", "max", "avg", "first", "last");
    private static final String ROW = "%-24s  %8s  %-16s  %8s  %12s  %12s  %12s  %12s  %12s";

    private BucketOutput() {}

    /** A printer of {@code device}'s buckets to {@code out}; call {@link Printer#finish()} at the end. */
    public static Printer printer(ReadingOutput format, PrintStream out, String device) {
        switch (format) {
            case JSON:
                return new Printer(bucket -> out.println(json(bucket)));
            case TABLE:
                List<Object> header = new ArrayList<>(List.of("start", "readings", "field"));
                header.addAll(STATS);
                out.println(String.format(Locale.ROOT, ROW, header.toArray()));
                return new Printer(bucket -> tableRows(bucket, out));
            default:
                List<Rollups.Bucket> all = new ArrayList<>();
                return new Printer(all::add) {
                    @Override
                    public void finish() {
                        printCsv(device, all, out);
                    }
                };
        }
    }

    /** Takes buckets one by one; {@link #finish()} completes the output. */
    public static class Printer implements Consumer<Rollups.Bucket> {
        private final Consumer<Rollups.Bucket> each;

        Printer(Consumer<Rollups.Bucket> each) {
            this.each = each;
        }

        @Override
        public void accept(Rollups.Bucket bucket) {
            each.accept(bucket);
        }

        public void finish() {}
    }

    /** {@code {"deviceId":…,"grain":…,"start":…,"readings":…,"fields":{"temp":{"count":…,"min":…,…}}}}. */
    static String json(Rollups.Bucket bucket) {
        StringWriter text = new StringWriter();
        try (JsonGenerator g = JSON_FACTORY.createGenerator(text)) {
            g.writeStartObject();
            g.writeStringField("deviceId", bucket.device());
            g.writeStringField("grain", bucket.grain().toString());
            g.writeStringField("start", start(bucket));
            g.writeNumberField("readings", bucket.readings());
            g.writeObjectFieldStart("fields");
            for (Map.Entry<String, Rollups.FieldStats> field : bucket.fields().entrySet()) {
                g.writeObjectFieldStart(field.getKey());
                List<String> values = values(field.getValue());
                for (int i = 0; i < STATS.size(); i++) {
                    g.writeFieldName(STATS.get(i));
                    g.writeNumber(values.get(i));
                }
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    private static void tableRows(Rollups.Bucket bucket, PrintStream out) {
        if (bucket.fields().isEmpty()) {
            out.println(String.format(Locale.ROOT, ROW, start(bucket), bucket.readings(), "-", "", "", "", "", "", "")
                    .stripTrailing());
        }
        bucket.fields().forEach((name, stats) -> {
            List<Object> cells = new ArrayList<>(List.of(start(bucket), bucket.readings(), name));
            List<String> values = new ArrayList<>(values(stats));
            values.set(STATS.indexOf("avg"), tableAverage(stats));
            cells.addAll(values);
            out.println(String.format(Locale.ROOT, ROW, cells.toArray()));
        });
    }

    private static void printCsv(String device, List<Rollups.Bucket> buckets, PrintStream out) {
        Set<String> fields = new TreeSet<>();
        buckets.forEach(b -> fields.addAll(b.fields().keySet()));
        List<String> header = new ArrayList<>(List.of("start", "deviceId", "grain", "readings"));
        fields.forEach(field -> STATS.forEach(stat -> header.add(field + "." + stat)));
        out.println(ReadingOutput.csvLine(header));
        for (Rollups.Bucket bucket : buckets) {
            List<String> row = new ArrayList<>(
                    List.of(start(bucket), device, bucket.grain().toString(), Long.toString(bucket.readings())));
            for (String field : fields) {
                Rollups.FieldStats stats = bucket.fields().get(field);
                row.addAll(stats == null ? List.of("", "", "", "", "", "") : values(stats));
            }
            out.println(ReadingOutput.csvLine(row));
        }
    }

    private static String start(Rollups.Bucket bucket) {
        return Rollups.INSTANT.format(Instant.ofEpochMilli(bucket.startMillis()));
    }

    /** count, min, max, avg, first, last as text. */
    static List<String> values(Rollups.FieldStats stats) {
        return List.of(
                Long.toString(stats.count()),
                plain(stats.min()),
                plain(stats.max()),
                average(stats),
                plain(stats.first()),
                plain(stats.last()));
    }

    /**
     * The mean for people: one decimal more than the field's readings have (its min, max, first
     * and last), so that a column keeps its width; JSON and CSV keep {@link #average}.
     */
    static String tableAverage(Rollups.FieldStats stats) {
        int scale = 1
                + Math.max(
                        0,
                        List.of(stats.min(), stats.max(), stats.first(), stats.last()).stream()
                                .mapToInt(v -> v.stripTrailingZeros().scale())
                                .max()
                                .orElse(0));
        return plain(stats.average().setScale(scale, RoundingMode.HALF_EVEN));
    }

    /** The mean to 16 significant digits, without trailing zeros, never in E notation. */
    static String average(Rollups.FieldStats stats) {
        return plain(stats.average().round(MathContext.DECIMAL64).stripTrailingZeros());
    }

    private static String plain(BigDecimal value) {
        return value.toPlainString();
    }
}
