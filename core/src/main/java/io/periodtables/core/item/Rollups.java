package io.periodtables.core.item;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.PeriodLength;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import javax.annotation.Nullable;
import org.apache.flink.annotation.PublicEvolving;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Rollups (docs/DESIGN.md "Rollup tables and the latest table"): per device and time bucket of
 * each grain of {@code rollups.every}, the count, minimum, maximum, sum, first and last value of
 * each numeric payload field, in the rollups table of the bucket's period. Buckets start at the
 * period's start and every grain after it, so a bucket never spans two periods (a day with a
 * daylight-saving change cuts its last bucket short). This class holds the grains, the bucket
 * rule and the item layout that the job writes and the query reads.
 */
@PublicEvolving
public final class Rollups implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Most buckets of one grain in one period: bounds a device's rollup state. */
    public static final int MAX_BUCKETS_PER_PERIOD = 1440;

    /** Most grains in {@code rollups.every}. */
    public static final int MAX_GRAINS = 3;

    private static final JsonFactory JSON = new SharedBufferJsonFactory();

    /** Sums are stored with at most DynamoDB's 38 significant digits. */
    public static final MathContext SUM_PRECISION = new MathContext(38, RoundingMode.HALF_EVEN);

    public static final String READINGS = "readings";
    public static final String FIELDS = "fields";
    public static final String COUNT = "count";
    public static final String MIN = "min";
    public static final String MAX = "max";
    public static final String SUM = "sum";
    public static final String FIRST = "first";
    public static final String LAST = "last";

    /** Instants in sort keys: always milliseconds, so text order is time order. */
    public static final DateTimeFormatter INSTANT = new DateTimeFormatterBuilder()
            .appendPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .toFormatter()
            .withZone(ZoneOffset.UTC);

    private final List<Duration> grains;

    @Nullable
    private final Set<String> fields;

    private final PeriodCalendar calendar;

    private Rollups(List<Duration> grains, @Nullable Set<String> fields, PeriodCalendar calendar) {
        this.grains = grains;
        this.fields = fields;
        this.calendar = calendar;
    }

    /** The rollups {@code config} asks for, or empty when {@code rollups.every} is not set. */
    public static Optional<Rollups> of(ItemSettings config) {
        return config.rollupGrains()
                .map(grains -> new Rollups(
                        grains, config.rollupFields().map(Set::copyOf).orElse(null), config.calendar()));
    }

    /** {@code rollups.every}: 1 to 3 distinct durations of whole seconds, e.g. {@code PT1M,PT1H}. */
    public static List<Duration> parseGrains(String text) {
        Set<Duration> grains = new LinkedHashSet<>();
        for (String part : text.split(",", -1)) {
            Duration grain = grain(part.strip());
            if (grain.getNano() != 0) {
                throw new IllegalArgumentException("'" + part.strip() + "' is not whole seconds");
            }
            if (!grains.add(grain)) {
                throw new IllegalArgumentException(grain + " is given twice");
            }
        }
        if (grains.size() > MAX_GRAINS) {
            throw new IllegalArgumentException("at most " + MAX_GRAINS + " grains");
        }
        return List.copyOf(grains);
    }

    /** One grain: a positive ISO-8601 duration, as {@code ConfigValues.positiveDuration} reads durations. */
    private static Duration grain(String text) {
        Duration grain;
        try {
            grain = Duration.parse(text.toUpperCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("expected an ISO-8601 duration such as PT30S, PT5M, PT1H or P30D");
        }
        if (grain.isNegative() || grain.isZero()) {
            throw new IllegalArgumentException("expected a positive ISO-8601 duration such as PT30S, PT5M or P30D");
        }
        return grain;
    }

    /** {@code rollups.fields}: top-level payload field names, comma-separated. */
    public static List<String> parseFields(String text) {
        List<String> fields = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            String field = part.strip();
            if (field.isEmpty()) {
                throw new IllegalArgumentException("expected field names separated by commas, found an empty one");
            }
            fields.add(field);
        }
        return List.copyOf(fields);
    }

    /**
     * Why {@code grain} cannot bucket periods of {@code length}, or empty when it can: a sub-day
     * period must be a whole number of grains, longer periods need a grain that divides a day, and
     * no period may hold more than {@value #MAX_BUCKETS_PER_PERIOD} buckets.
     */
    public static Optional<String> misfit(Duration grain, PeriodLength length) {
        long grainSeconds = grain.getSeconds();
        long periodSeconds = length.nominalMinutes() * 60;
        long divides = length.kind() == PeriodLength.Kind.SUB_DAY ? periodSeconds : 86_400;
        if (divides % grainSeconds != 0) {
            return Optional.of(
                    grain + " does not divide " + (divides == 86_400 ? "a day" : "tables.period (" + length + ")"));
        }
        long buckets = (length.kind() == PeriodLength.Kind.MONTH ? 31 * 86_400L : periodSeconds) / grainSeconds;
        if (buckets > MAX_BUCKETS_PER_PERIOD) {
            return Optional.of(String.format(
                    "%s makes %,d buckets per %s period, more than %,d (a device's rollup state holds a period's"
                            + " buckets)",
                    grain, buckets, length, MAX_BUCKETS_PER_PERIOD));
        }
        return Optional.empty();
    }

    public List<Duration> grains() {
        return grains;
    }

    /** Whether {@code field} is rolled up: any numeric field when {@code rollups.fields} is not set. */
    public boolean includes(String field) {
        return fields == null || fields.contains(field);
    }

    /**
     * The top-level numeric fields of a stored reading's canonical payload that are rolled up
     * ({@link #includes}), by name.
     */
    public Map<String, BigDecimal> numbersOf(String payloadJson) {
        Map<String, BigDecimal> numbers = new TreeMap<>();
        try (JsonParser parser = JSON.createParser(payloadJson)) {
            parser.nextToken(); // the object
            String field;
            while ((field = parser.nextFieldName()) != null) {
                JsonToken value = parser.nextToken();
                if ((value == JsonToken.VALUE_NUMBER_INT || value == JsonToken.VALUE_NUMBER_FLOAT) && includes(field)) {
                    numbers.put(field, new BigDecimal(parser.getText()));
                } else {
                    parser.skipChildren();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("a stored reading's payload is not JSON: " + payloadJson, e);
        }
        return numbers;
    }

    public PeriodCalendar calendar() {
        return calendar;
    }

    /** The start of the bucket of {@code grain} holding {@code eventMillis}, in {@code period}. */
    public static long bucketStart(Period period, Duration grain, long eventMillis) {
        long grainMillis = grain.toMillis();
        return period.startMillis() + (eventMillis - period.startMillis()) / grainMillis * grainMillis;
    }

    /** The end of the bucket starting at {@code start}: one grain later, or the period's end. */
    public static long bucketEnd(Period period, Duration grain, long start) {
        return Math.min(start + grain.toMillis(), period.endMillis());
    }

    /** A bucket's sort key: {@code <grain>#<start, UTC, milliseconds>}, e.g. {@code PT1H#2026-11-22T13:00:00.000Z}. */
    public static String sortKey(Duration grain, long start) {
        return grain + "#" + INSTANT.format(Instant.ofEpochMilli(start));
    }

    /** The statistics of one field in one bucket. {@code first}/{@code last}: by event time, then sort key. */
    @PublicEvolving
    public record FieldStats(
            long count, BigDecimal min, BigDecimal max, BigDecimal sum, BigDecimal first, BigDecimal last) {

        /** The mean: sum / count, to DynamoDB's 38 digits. */
        public BigDecimal average() {
            return sum.divide(BigDecimal.valueOf(count), SUM_PRECISION);
        }
    }

    /** One bucket of one device as its item holds it. */
    @PublicEvolving
    public record Bucket(
            String device, Duration grain, long startMillis, long readings, Map<String, FieldStats> fields) {

        /**
         * The item: {@code pk} = device, {@code sk} = {@link #sortKey}, {@code readings}, {@code fields}, optional
         * {@code ttl}.
         */
        public Map<String, AttributeValue> item(@Nullable Duration ttl) {
            Map<String, AttributeValue> item = new HashMap<>();
            item.put(ItemAttributes.PK, AttributeValue.fromS(device));
            item.put(ItemAttributes.SK, AttributeValue.fromS(sortKey(grain, startMillis)));
            item.put(READINGS, AttributeValue.fromN(Long.toString(readings)));
            Map<String, AttributeValue> stats = new TreeMap<>();
            fields.forEach((name, s) -> stats.put(
                    name,
                    AttributeValue.fromM(Map.of(
                            COUNT, AttributeValue.fromN(Long.toString(s.count())),
                            MIN, number(s.min()),
                            MAX, number(s.max()),
                            SUM, number(s.sum().round(SUM_PRECISION)),
                            FIRST, number(s.first()),
                            LAST, number(s.last())))));
            item.put(FIELDS, AttributeValue.fromM(stats));
            if (ttl != null) {
                item.put(
                        ItemAttributes.TTL,
                        AttributeValue.fromN(Long.toString(Math.floorDiv(startMillis, 1000) + ttl.getSeconds())));
            }
            return item;
        }

        /** The bucket of a rollups table item. */
        public static Bucket of(Map<String, AttributeValue> item) {
            String sk = item.get(ItemAttributes.SK).s();
            int hash = sk.indexOf('#');
            Map<String, FieldStats> fields = new TreeMap<>();
            AttributeValue stored = item.get(FIELDS);
            if (stored != null && stored.m() != null) {
                stored.m().forEach((name, value) -> {
                    Map<String, AttributeValue> s = value.m();
                    fields.put(
                            name,
                            new FieldStats(
                                    Long.parseLong(s.get(COUNT).n()),
                                    new BigDecimal(s.get(MIN).n()),
                                    new BigDecimal(s.get(MAX).n()),
                                    new BigDecimal(s.get(SUM).n()),
                                    new BigDecimal(s.get(FIRST).n()),
                                    new BigDecimal(s.get(LAST).n())));
                });
            }
            return new Bucket(
                    item.get(ItemAttributes.PK).s(),
                    Duration.parse(sk.substring(0, hash)),
                    Instant.parse(sk.substring(hash + 1)).toEpochMilli(),
                    Long.parseLong(item.get(READINGS).n()),
                    fields);
        }

        private static AttributeValue number(BigDecimal value) {
            return AttributeValue.fromN(value.toString());
        }
    }
}
