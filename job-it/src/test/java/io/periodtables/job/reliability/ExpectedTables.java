package io.periodtables.job.reliability;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.TableNaming;
import io.periodtables.job.input.ReadingParser;
import io.periodtables.model.Reading;
import io.periodtables.model.RejectReason;
import io.periodtables.model.Rejection;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What the tables must hold after a run of the production topology ({@link TestSource}) over a {@link TestInput},
 * computed without the sink: {@link ReadingParser} splits the input into readings and
 * rejections (as the job does), the watermark is replayed to know which readings are late, and
 * each item is written out from DESIGN.md: keys by {@link WriteSharding}, tables by
 * {@link TableNaming}, payload attributes by the JSON mapping, rejections by reason and raw hash.
 *
 * <p>Late readings appear here under {@link #LATE}; {@link #lateTables()} names the tables
 * they go to (the months of the watermarks that made them late). Readings DynamoDB cannot store (items over 400 KB) are expected in the rejected
 * table as {@code item-too-large}, with the reading as JSON for {@code raw}.
 */
public final class ExpectedTables {
    /** Stands for the late table(s) of the run. */
    static final String LATE = "<late>";

    /** DynamoDB's item size limit. */
    static final long MAX_ITEM_BYTES = 400 * 1024;

    private static final JsonFactory JSON = new JsonFactory();

    private final TableNaming naming;
    private final Map<ItemRef, Map<String, AttributeValue>> items = new TreeMap<>();
    private final Map<ItemRef, Pattern> reasonPatterns = new TreeMap<>();
    private final Map<ItemRef, List<Map<String, AttributeValue>>> alternatives = new TreeMap<>();
    private final Map<ItemRef, Map<String, AttributeValue>> refusedByDynamoDb = new TreeMap<>();
    private final List<Reading> readings = new ArrayList<>();
    private final List<Rejection> rejections = new ArrayList<>();
    private int late;
    private final java.util.Set<String> lateTables = new java.util.TreeSet<>();

    private ExpectedTables(TableNaming naming) {
        this.naming = naming;
    }

    /** The expected tables of {@code input} under {@code config}, parsed as at {@code now}. */
    static ExpectedTables of(PeriodTablesConfig config, TestInput input, Instant now) {
        ExpectedTables expected = new ExpectedTables(config.naming());
        ReadingParser parser = new ReadingParser(config);
        for (byte[] record : input.data()) {
            parser.parse(
                    record, TestInput.ORIGIN, now.toEpochMilli(), expected.readings::add, expected.rejections::add);
        }
        expected.rejections.forEach(expected::expectRejection);
        expected.expectReadings(config);
        return expected;
    }

    Map<ItemRef, Map<String, AttributeValue>> items() {
        return Collections.unmodifiableMap(items);
    }

    /** Items whose {@code reason} is a message made by the sink: compared by pattern. */
    Map<ItemRef, Pattern> reasonPatterns() {
        return Collections.unmodifiableMap(reasonPatterns);
    }

    /** Rejected items that several records share: any of these versions is right. */
    Map<ItemRef, List<Map<String, AttributeValue>>> alternatives() {
        return Collections.unmodifiableMap(alternatives);
    }

    /**
     * Readings whose item DynamoDB refuses, by the place they would have had: each must be in the
     * rejected table as one {@code dynamodb-validation} item whose raw is this item.
     */
    Map<ItemRef, Map<String, AttributeValue>> refusedByDynamoDb() {
        return Collections.unmodifiableMap(refusedByDynamoDb);
    }

    /** The valid readings of the input, in arrival order (duplicates included). */
    List<Reading> readings() {
        return Collections.unmodifiableList(readings);
    }

    /** How many readings arrive after their period's grace. */
    int lateReadings() {
        return late;
    }

    /** The late tables the run writes: of the UTC months of the watermarks that made readings late. */
    java.util.Set<String> lateTables() {
        return lateTables;
    }

    TableNaming naming() {
        return naming;
    }

    private void expectReadings(PeriodTablesConfig config) {
        PeriodCalendar calendar = config.calendar();
        long outOfOrderness = config.get(ConfigKeys.OUT_OF_ORDERNESS).toMillis();
        long lateness = config.get(ConfigKeys.ALLOWED_LATENESS).toMillis();
        boolean lateToPeriod = config.get(ConfigKeys.LATE_POLICY) == ConfigKeys.LatePolicy.PERIOD_TABLE;
        Long ttlSeconds = config.ttl().map(java.time.Duration::getSeconds).orElse(null);
        long granularity = lateness % 1000 == 0 && outOfOrderness % 1000 == 0 ? 1000 : 1;
        long maxTimestamp = Long.MIN_VALUE;
        long watermark = Long.MIN_VALUE;
        java.util.Set<String> withTables = new java.util.HashSet<>();
        for (Reading reading : readings) {
            // Flink's window operator: a reading whose window ended (plus lateness) at or before
            // the watermark it meets is late; the watermark follows after the reading. With
            // late.policy=period-table it goes to its period's table if that exists (an on-time
            // reading made it), else to the late table: a closed period's table is never created.
            boolean isLate;
            String table;
            try {
                isLate = calendar.periodOf(reading.eventMillis()).endMillis() - 1 + lateness <= watermark;
                String own = naming.periodTableOf(Instant.ofEpochMilli(reading.eventMillis()));
                table = isLate && !(lateToPeriod && withTables.contains(own)) ? LATE : own;
                if (!isLate) {
                    withTables.add(own);
                }
            } catch (IllegalArgumentException noTableName) {
                Rejection sinkRejection = Rejection.of(
                        RejectReason.BAD_TIMESTAMP, noTableName.getMessage(), readingJson(reading), 0, "sink");
                expect(
                        new ItemRef(naming.rejectedTable(), rejectedPk(sinkRejection), sinkRejection.rawHash()),
                        rejectionItem(sinkRejection));
                continue;
            }
            late += isLate ? 1 : 0;
            String lateTable = naming.lateTable(Instant.ofEpochMilli(watermark));
            if (LATE.equals(table)) {
                lateTables.add(lateTable);
            }
            // The source's watermark: after each reading, in whole seconds (see ReadingWatermarks).
            maxTimestamp = Math.max(maxTimestamp, reading.eventMillis());
            watermark = Math.floorDiv(maxTimestamp - outOfOrderness, granularity) * granularity - 1;
            expectReading(table, lateTable, reading, config.sharding(), ttlSeconds);
        }
    }

    private void expectReading(
            String table, String lateTable, Reading reading, WriteSharding sharding, Long ttlSeconds) {
        WriteSharding.ItemKey key =
                sharding.keyOf(reading.deviceId(), reading.eventMillis(), reading.eventId(), reading.canonical());
        Map<String, AttributeValue> item = new TreeMap<>(Attributes.ofJsonObject(reading.payloadJson()));
        item.put("pk", AttributeValue.fromS(key.pk()));
        item.put("sk", AttributeValue.fromS(key.sk()));
        if (ttlSeconds != null) {
            item.put("ttl", Attributes.number(Long.toString(Math.floorDiv(reading.eventMillis(), 1000L) + ttlSeconds)));
        }
        if (Attributes.approximateSize(item) > MAX_ITEM_BYTES * 95 / 100) {
            if (Attributes.approximateSize(item) < MAX_ITEM_BYTES * 105 / 100) {
                throw new IllegalArgumentException(
                        "reading of " + reading.deviceId() + " is too close to 400 KB to tell");
            }
            String target = table.equals(LATE) ? lateTable : table;
            Rejection tooLarge = Rejection.of(RejectReason.ITEM_TOO_LARGE, "", readingJson(reading), 0, target);
            ItemRef ref = new ItemRef(naming.rejectedTable(), rejectedPk(tooLarge), tooLarge.rawHash());
            expect(ref, rejectionItem(tooLarge));
            reasonPatterns.put(
                    ref,
                    Pattern.compile("item of \\d+ bytes exceeds DynamoDB's limit of 409600 bytes \\(table "
                            + Pattern.quote(target) + "\\)"));
            return;
        }
        if (item.containsKey("")) {
            // The parser lets an empty top-level field name through; DynamoDB refuses the item and
            // the sink isolates it into the rejected table as dynamodb-validation, raw = the item.
            refusedByDynamoDb.put(new ItemRef(table, key.pk(), key.sk()), item);
            return;
        }
        expect(new ItemRef(table, key.pk(), key.sk()), item);
    }

    private void expectRejection(Rejection rejection) {
        expect(
                new ItemRef(naming.rejectedTable(), rejectedPk(rejection), rejection.rawHash()),
                rejectionItem(rejection));
    }

    /** DESIGN.md "Items in the rejected table", without {@code arrivedAt} (a wall-clock time). */
    public static Map<String, AttributeValue> rejectionItem(Rejection rejection) {
        Map<String, AttributeValue> item = new TreeMap<>();
        item.put("pk", AttributeValue.fromS(rejectedPk(rejection)));
        item.put("sk", AttributeValue.fromS(rejection.rawHash()));
        item.put("reason", AttributeValue.fromS(rejection.message()));
        item.put("raw", Attributes.raw(rejection.raw()));
        item.put("rawBytes", Attributes.number(Long.toString(rejection.rawBytes())));
        item.put("origin", AttributeValue.fromS(rejection.origin()));
        return item;
    }

    /** DESIGN.md: {@code <reason code>#<k>}, k = the sort key (16 hex digits) modulo 16. */
    static String rejectedPk(Rejection rejection) {
        return rejection.reason().code() + "#"
                + Long.remainderUnsigned(Long.parseUnsignedLong(rejection.rawHash(), 16), 16);
    }

    private void expect(ItemRef ref, Map<String, AttributeValue> item) {
        Map<String, AttributeValue> previous = items.put(ref, item);
        if (previous != null && !previous.equals(item) && ref.table().equals(naming.rejectedTable())) {
            // The same bad bytes from two places (a record and an array element) are one rejected
            // item, its key being the raw's hash: the last write decides origin and message.
            alternatives
                    .computeIfAbsent(ref, r -> new ArrayList<>(List.of(previous)))
                    .add(item);
        } else if (previous != null && !previous.equals(item)) {
            throw new IllegalArgumentException(
                    "the input holds two versions of " + ref + "; which one is written last is not determined");
        }
    }

    /** A reading as the sink renders it for the {@code raw} of its rejection: device, instant, eventId, payload. */
    static byte[] readingJson(Reading reading) {
        StringWriter text = new StringWriter();
        try (JsonGenerator json = JSON.createGenerator(text)) {
            json.writeStartObject();
            json.writeStringField("deviceId", reading.deviceId());
            json.writeStringField(
                    "timestamp", Instant.ofEpochMilli(reading.eventMillis()).toString());
            if (reading.eventId() != null) {
                json.writeStringField("eventId", reading.eventId());
            }
            json.writeFieldName("payload");
            json.writeRawValue(reading.payloadJson());
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }
}
