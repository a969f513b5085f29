package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.TableNaming;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynaliteExtension;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.job.input.ReadingParser;
import io.periodtables.model.Reading;
import io.periodtables.model.RejectReason;
import io.periodtables.model.Rejection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The bad-input corpus ({@link BadInputCorpus}) through the job, once: every record, and every
 * element of an array record, ends as the manifest says, either stored as a reading (device id
 * intact in the key, whatever characters it holds) or in the rejected table with its reason and
 * a {@code raw} that gives the record back (its first 64 KB, with {@code rawBytes} the full
 * size). Then the whole prefix passes the exactly-once check, and no table name the job asked
 * DynamoDB for came from record content.
 */
class BadInputCorpusITCase {
    /** Numbers as the parser reads them (BigDecimal, BigInteger), so an element's text is the parser's. */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .build();
    /** Every name a table of this prefix may have. */
    static final Pattern TABLE_NAME =
            Pattern.compile("rel_corpus_(\\d{4}-\\d{2}-\\d{2}T\\d{4}|late_\\d{4}-\\d{2}|rejected|writers|latest)");

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static Dynalite dynamoDb;
    private static List<BadInputCorpus.Entry> corpus;
    private static ReliabilityRun run;
    private static TableSnapshot tables;

    @BeforeAll
    static void startDynamoDb() {
        dynamoDb = DYNAMODB.emulator();
        corpus = BadInputCorpus.load();
    }

    @AfterAll
    static void stopDynamoDb() {}

    /** Runs the corpus through the job on first use; every test of this class looks at that one run. */
    private static synchronized void corpusRun() throws Exception {
        if (run != null) {
            return;
        }
        DynamoDbFaults.reset();
        TestInput input = new TestInput();
        corpus.forEach(entry -> input.bytes(entry.data()));
        PeriodTablesConfig config = ReliabilityRun.config(dynamoDb.endpoint(), "rel_corpus");
        run = ReliabilityRun.of(config, input).execute();
        tables = run.snapshot(dynamoDb);
    }

    @TestFactory
    Stream<DynamicTest> everyRecordEndsAsTheManifestSays() throws Exception {
        corpusRun();
        return corpus.stream().map(entry -> DynamicTest.dynamicTest(entry.name(), () -> assertOutcome(entry)));
    }

    @Test
    void theWholeCorpusIsStoredExactlyOnce() throws Exception {
        corpusRun();
        ExactlyOnceCheck.assertExactlyOnce(run.expected, tables, run.start, run.end);
        assertThat(run.expected.lateReadings())
                .as("the reading of year 1 arrives after 2025's")
                .isEqualTo(1);
    }

    @Test
    void noTableNameTheJobUsedCameFromRecordContent() throws Exception {
        corpusRun();
        List<String> named = run.requests().stream()
                .flatMap(r -> r.tables().stream())
                .distinct()
                .toList();
        assertThat(named).isNotEmpty().allSatisfy(table -> assertThat(table).matches(TABLE_NAME));
        assertThat(tables.tables()).allSatisfy(table -> assertThat(table).matches(TABLE_NAME));
    }

    /**
     * The parser accepts the years 0001-9999 in UTC, but table names are labelled in
     * {@code tables.zone}: west of Greenwich, 0001-01-01T00:00Z is still year 0 there, and no
     * table can be named for it. Such a reading must be rejected, not stop the job.
     */
    @Test
    void aReadingWithNoTableInTheTablesZoneIsRejectedAndDoesNotStopTheJob() throws Exception {
        TestInput input = new TestInput()
                .reading("zone-1", Instant.parse("2025-06-01T08:00:00Z"), "\"temp\":1")
                .reading("zone-2", Instant.parse("0001-01-01T00:00:00Z"), "\"temp\":2")
                .reading("zone-1", Instant.parse("2025-06-01T08:01:00Z"), "\"temp\":3");
        PeriodTablesConfig config =
                ReliabilityRun.config(dynamoDb.endpoint(), "rel_zone", "tables.zone", "America/New_York");

        ReliabilityRun zoned = ReliabilityRun.of(config, input).execute();

        TableSnapshot stored = zoned.assertExactlyOnce(dynamoDb);
        assertThat(stored.itemsOf(config.naming().rejectedTable()).keySet())
                .singleElement()
                .satisfies(ref -> assertThat(ref.pk()).matches("bad-timestamp#\\d+"));
    }

    private void assertOutcome(BadInputCorpus.Entry entry) throws IOException {
        JsonNode root = parseLeniently(entry.data());
        if (entry.outcomes().size() > 1 || (root != null && root.isArray() && !root.isEmpty())) {
            assertThat(root)
                    .as("an entry with several outcomes is an array record")
                    .isNotNull();
            assertThat(root.size())
                    .as("outcomes of %s", entry)
                    .isEqualTo(entry.outcomes().size());
            for (int i = 0; i < root.size(); i++) {
                byte[] element = root.get(i).toString().getBytes(StandardCharsets.UTF_8);
                assertReading(
                        entry + "[" + i + "]",
                        element,
                        root.get(i),
                        TestInput.ORIGIN + "[" + i + "]",
                        entry.outcomes().get(i),
                        false);
            }
            return;
        }
        assertReading(
                entry.name(),
                entry.data(),
                root,
                TestInput.ORIGIN,
                entry.outcomes().get(0),
                true);
    }

    /** One reading (or would-be reading) of an entry and its outcome; {@code whole}: the raw is the record's own bytes. */
    private void assertReading(String what, byte[] data, JsonNode node, String origin, String outcome, boolean whole) {
        String rejected = run.config.naming().rejectedTable();
        if (outcome.equals(BadInputCorpus.OK)) {
            Reading reading = onlyReading(data);
            String device = node.get("deviceId").textValue();
            assertThat(reading.deviceId()).as("%s: device id as sent", what).isEqualTo(device);
            ItemRef stored = storedItemOf(reading);
            assertThat(stored).as("%s is stored as a reading", what).isNotNull();
            assertThat(stored.pk())
                    .as("%s: partition key is the device id and a shard", what)
                    .matches(Pattern.quote(device) + "#[01]");
            assertThat(stored.table()).matches(TABLE_NAME.pattern() + "|" + Pattern.quote(ExpectedTables.LATE));
            return;
        }
        List<Map.Entry<ItemRef, Map<String, AttributeValue>>> found = rejectionsOf(data, node, origin);
        assertThat(found).as("%s: its rejection", what).hasSize(1);
        ItemRef ref = found.get(0).getKey();
        Map<String, AttributeValue> item = found.get(0).getValue();
        assertThat(ref.table()).isEqualTo(rejected);
        if (!outcome.equals(BadInputCorpus.ANY_REJECTION)) {
            // pk: the reason code and one of its 16 spread keys (DESIGN.md)
            assertThat(ref.pk()).as("%s: reason", what).matches(Pattern.quote(outcome) + "#([0-9]|1[0-5])");
        }
        assertThat(item.get("reason").s())
                .as("%s: a human-readable reason", what)
                .isNotBlank();
        if (item.get("origin").s().startsWith(TestInput.ORIGIN)) {
            assertRawRoundTrips(what, data, node, item, whole);
        } else {
            // Rejected by the sink (DynamoDB cannot store it): raw is the reading or item as JSON, origin its table.
            assertThat(item.get("origin").s()).as("%s: origin", what).matches(TABLE_NAME);
            assertThat(Long.parseLong(item.get("rawBytes").n()))
                    .as("%s: rawBytes", what)
                    .isGreaterThanOrEqualTo(item.get("raw").s().getBytes(StandardCharsets.UTF_8).length);
        }
    }

    private static void assertRawRoundTrips(
            String what, byte[] data, JsonNode node, Map<String, AttributeValue> item, boolean whole) {
        assertThat(Long.parseLong(item.get("rawBytes").n()))
                .as("%s: rawBytes", what)
                .isEqualTo(data.length);
        byte[] raw = item.get("raw").s() != null
                ? item.get("raw").s().getBytes(StandardCharsets.UTF_8)
                : item.get("raw").b().asByteArray();
        if (data.length <= Rejection.MAX_RAW_BYTES) {
            if (whole) {
                assertThat(raw).as("%s: raw is the record", what).isEqualTo(data);
            } else {
                assertThat(parseLeniently(raw))
                        .as("%s: raw is the element", what)
                        .isEqualTo(node);
            }
        } else {
            assertThat(raw.length)
                    .as("%s: raw is cut to 64 KB at a character boundary", what)
                    .isBetween(Rejection.MAX_RAW_BYTES - 3, Rejection.MAX_RAW_BYTES);
            assertThat(raw)
                    .as("%s: raw is the record's beginning", what)
                    .isEqualTo(java.util.Arrays.copyOf(data, raw.length));
            assertThat(item.get("raw").s())
                    .as("%s: a cut UTF-8 record is still text", what)
                    .isNotNull();
        }
    }

    /**
     * Rejected items of this record: by raw hash and origin (the parser's), or by the device id
     * that leads the raw (the sink's: the reading as JSON, or the item with its partition key).
     */
    private List<Map.Entry<ItemRef, Map<String, AttributeValue>>> rejectionsOf(
            byte[] data, JsonNode node, String origin) {
        String hash =
                Rejection.of(RejectReason.INVALID_JSON, "", data, 0, origin).rawHash();
        String device = node != null && node.isObject() && node.path("deviceId").isTextual()
                ? node.get("deviceId").textValue()
                : null;
        List<Map.Entry<ItemRef, Map<String, AttributeValue>>> found = new ArrayList<>();
        tables.itemsOf(run.config.naming().rejectedTable()).entrySet().forEach(e -> {
            Map<String, AttributeValue> item = e.getValue();
            boolean byParser =
                    e.getKey().sk().equals(hash) && item.get("origin").s().equals(origin);
            boolean bySink = device != null
                    && !item.get("origin").s().startsWith(TestInput.ORIGIN)
                    && deviceOfRaw(item).equals(device);
            if (byParser || bySink) {
                found.add(e);
            }
        });
        return found;
    }

    /** The device a sink-made rejection is about: its raw is the reading ({@code deviceId}) or the item ({@code pk}). */
    private static String deviceOfRaw(Map<String, AttributeValue> item) {
        String raw = item.get("raw").s();
        JsonNode node = raw == null ? null : parseLeniently(raw.getBytes(StandardCharsets.UTF_8));
        if (node != null && node.path("deviceId").isTextual()) {
            return node.get("deviceId").textValue();
        }
        if (node != null && node.path("pk").isTextual()) {
            return node.get("pk").textValue().replaceFirst("#\\d+$", "");
        }
        if (raw != null && raw.startsWith("{\"deviceId\":")) {
            // The raw of a reading too large for DynamoDB is cut to 64 KB: read its first field alone.
            try (var parser = JSON.getFactory().createParser(raw)) {
                parser.nextToken();
                parser.nextToken();
                parser.nextToken();
                return parser.getText();
            } catch (IOException e) {
                return "";
            }
        }
        return "";
    }

    private ItemRef storedItemOf(Reading reading) {
        var key = run.config
                .sharding()
                .keyOf(reading.deviceId(), reading.eventMillis(), reading.eventId(), reading.canonical());
        TableNaming naming = run.config.naming();
        for (String table :
                List.of(naming.periodTableOf(Instant.ofEpochMilli(reading.eventMillis())), ExpectedTables.LATE)) {
            ItemRef ref = new ItemRef(table, key.pk(), key.sk());
            if (tables.items().containsKey(ref)) {
                return ref;
            }
        }
        return null;
    }

    private Reading onlyReading(byte[] data) {
        List<Reading> readings = new ArrayList<>();
        new ReadingParser(run.config)
                .parse(data, TestInput.ORIGIN, Instant.now().toEpochMilli(), readings::add, r -> {});
        assertThat(readings).hasSize(1);
        return readings.get(0);
    }

    private static JsonNode parseLeniently(byte[] data) {
        try {
            return JSON.readTree(data);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
