package io.periodtables.bench.writeunits;

import com.fasterxml.jackson.databind.JsonNode;
import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.BenchConfigs;
import io.periodtables.bench.BenchLog;
import io.periodtables.bench.InstantDynamoDb;
import io.periodtables.bench.MachineFacts;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.period.PeriodLength;
import io.periodtables.core.period.TableNaming;
import io.periodtables.job.PeriodTablesTopology;
import io.periodtables.query.plan.FleetShape;
import io.periodtables.query.plan.TableWrites;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.flink.api.common.JobID;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Benchmark 21 (issue 58): write units per stored reading, by the kind of table the job writes
 * them to, for fleets whose devices send a reading every 1 s, 10 s and 60 s, with the defaults
 * and with {@code rollups.every=PT1M,PT1H}: the production topology on its generator source
 * against {@link InstantDynamoDb}, which sizes every item it is sent by DynamoDB's rules ({@code
 * DynamoDbItemSize}: a write unit per started KB). Time is compressed {@value #SPEEDUP} times
 * (event time, the latest interval and the checkpoint interval alike: {@code latest.interval=PT10S}
 * and a checkpoint every 10 s stand for the default {@code PT1M} and MSF's minute), so a measured
 * wall minute is six minutes of the fleet's. Measured over {@link #MEASURED} after {@link
 * #WARM_UP}, inside one event hour (no {@code PT1H} bucket ends in it). Beside each row, what
 * {@code plan} ({@link TableWrites}) says for the same fleet at the uncompressed settings.
 */
public final class WriteUnitsBench {

    static final int SPEEDUP = 6;
    static final int DEVICES = 300;
    static final Duration WARM_UP = Duration.ofSeconds(20);
    static final Duration MEASURED = Duration.ofSeconds(60);
    private static final Duration SLACK = Duration.ofSeconds(30);
    static final List<Duration> SHAPES = List.of(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(60));
    static final String ROLLUPS = "PT1M,PT1H";

    /** The kinds of table a write goes to. */
    enum Kind {
        PERIOD,
        LATEST,
        ROLLUPS,
        LATE,
        BOOKKEEPING,
        OTHER
    }

    /** One fleet and setting: readings stored in the window, write units by kind in it, and plan's per reading. */
    record Row(Duration every, boolean rollups, long readings, Map<Kind, Long> units, TableWrites plan) {
        double perReading(Kind kind) {
            return readings == 0 ? 0 : (double) units.getOrDefault(kind, 0L) / readings;
        }

        double total() {
            return units.values().stream().mapToLong(Long::longValue).sum() / (double) readings;
        }
    }

    private WriteUnitsBench() {}

    /** Measures the three fleet shapes, with the defaults and with rollups; returns section 21. */
    public static String run() throws Exception {
        List<Row> rows = new ArrayList<>();
        String loadAtStart = MachineFacts.loadAverage();
        for (boolean rollups : new boolean[] {false, true}) {
            for (Duration every : SHAPES) {
                rows.add(measure(every, rollups));
            }
        }
        return markdown(rows, loadAtStart, MachineFacts.loadAverage());
    }

    private static Row measure(Duration every, boolean rollups) throws Exception {
        Map<Kind, LongAdder> units = new ConcurrentHashMap<>();
        Map<Kind, LongAdder> items = new ConcurrentHashMap<>();
        try (InstantDynamoDb backend = InstantDynamoDb.start(1);
                BenchCluster cluster = new BenchCluster()) {
            Instant now = Instant.now();
            double wallSeconds = (WARM_UP.plus(MEASURED).plus(SLACK)).toSeconds();
            // event time six times the wall clock's, all of it in one past hour: the watermark is capped at the wall
            // clock
            Instant start = now.minus(Duration.ofMinutes(12))
                    .truncatedTo(ChronoUnit.HOURS)
                    .plus(Duration.ofMinutes(1));
            double rate = DEVICES * SPEEDUP / (double) every.toSeconds();
            Map<String, String> keys = new HashMap<>();
            keys.put("tables.prefix", "wu" + System.currentTimeMillis() % 100_000);
            keys.put("tables.period", "P1D");
            keys.put("parallelism", Integer.toString(BenchCluster.PARALLELISM));
            keys.put("dynamodb.endpoint", backend.endpoint().toString());
            keys.put("generator.devices", Integer.toString(DEVICES));
            keys.put("generator.rate", BenchConfigs.fmt(rate));
            keys.put("generator.speedup", Integer.toString(SPEEDUP));
            keys.put("generator.start", start.toString());
            keys.put("generator.count", Long.toString((long) (rate * wallSeconds)));
            keys.put("latest.interval", "PT" + 60 / SPEEDUP + "S");
            if (rollups) {
                keys.put("rollups.every", ROLLUPS);
            }
            PeriodTablesConfig config = ConfigLoader.fromMap(keys, true);
            TableNaming naming = config.naming();
            backend.countWrites((table, item) -> {
                Kind kind = kindOf(naming, table);
                units.computeIfAbsent(kind, k -> new LongAdder()).add(unitsOf(item));
                items.computeIfAbsent(kind, k -> new LongAdder()).increment();
            });
            JobID id = cluster.submit(BenchCluster.graphOf(
                    60_000L / SPEEDUP, env -> PeriodTablesTopology.build(env, config, Clock.systemUTC())));
            long started = System.nanoTime();
            sleepUntil(started, WARM_UP);
            Map<Kind, Long> unitsBefore = snapshot(units);
            long readingsBefore = snapshot(items).getOrDefault(Kind.PERIOD, 0L);
            sleepUntil(started, WARM_UP.plus(MEASURED));
            Map<Kind, Long> unitsAfter = snapshot(units);
            long readings = snapshot(items).getOrDefault(Kind.PERIOD, 0L) - readingsBefore;
            cluster.miniCluster().cancelJob(id).get();
            Map<Kind, Long> measured = new EnumMap<>(Kind.class);
            for (Kind kind : Kind.values()) {
                measured.put(kind, unitsAfter.getOrDefault(kind, 0L) - unitsBefore.getOrDefault(kind, 0L));
            }
            TableWrites plan = TableWrites.of(
                    new FleetShape(DEVICES, every, FleetShape.MSF_CHECKPOINT_INTERVAL, BenchCluster.PARALLELISM),
                    200,
                    PeriodLength.DAY,
                    ConfigLoader.fromMap(rollups ? Map.of("rollups.every", ROLLUPS) : Map.of(), true));
            Row row = new Row(every, rollups, readings, measured, plan);
            BenchLog.log(String.format(
                    Locale.ROOT,
                    "write units: a reading every %s%s: %,d readings, %s per reading (plan %.3f)",
                    every,
                    rollups ? ", rollups " + ROLLUPS : "",
                    readings,
                    String.format(Locale.ROOT, "%.3f", row.total()),
                    plan.total()));
            return row;
        }
    }

    private static void sleepUntil(long startedNanos, Duration after) throws InterruptedException {
        long left = startedNanos + after.toNanos() - System.nanoTime();
        if (left > 0) {
            Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
        }
    }

    private static Map<Kind, Long> snapshot(Map<Kind, LongAdder> counts) {
        Map<Kind, Long> copy = new EnumMap<>(Kind.class);
        counts.forEach((kind, count) -> copy.put(kind, count.sum()));
        return copy;
    }

    static Kind kindOf(TableNaming naming, String table) {
        if (table.equals(naming.latestTable())) {
            return Kind.LATEST;
        }
        if (table.equals(naming.writersTable())) {
            return Kind.BOOKKEEPING;
        }
        return naming.parse(table)
                .map(ref -> switch (ref.kind()) {
                    case PERIOD -> Kind.PERIOD;
                    case ROLLUPS -> Kind.ROLLUPS;
                    case LATE -> Kind.LATE;
                    default -> Kind.OTHER;
                })
                .orElse(Kind.OTHER);
    }

    /** Write units of an item in DynamoDB's JSON: one per started KB of its size by DynamoDB's rules. */
    static long unitsOf(JsonNode item) {
        Map<String, AttributeValue> attributes = new LinkedHashMap<>();
        item.fields().forEachRemaining(f -> attributes.put(f.getKey(), value(f.getValue())));
        return Math.max(1, (DynamoDbItemSize.of(attributes) + 1023) / 1024);
    }

    private static AttributeValue value(JsonNode typed) {
        Map.Entry<String, JsonNode> only = typed.fields().next();
        JsonNode v = only.getValue();
        return switch (only.getKey()) {
            case "S" -> AttributeValue.fromS(v.asText());
            case "N" -> AttributeValue.fromN(v.asText());
            case "BOOL" -> AttributeValue.fromBool(v.asBoolean());
            case "NULL" -> AttributeValue.fromNul(true);
            case "B" ->
                AttributeValue.fromB(
                        SdkBytes.fromByteArray(java.util.Base64.getDecoder().decode(v.asText())));
            case "M" -> {
                Map<String, AttributeValue> m = new LinkedHashMap<>();
                v.fields().forEachRemaining(f -> m.put(f.getKey(), value(f.getValue())));
                yield AttributeValue.fromM(m);
            }
            case "L" -> {
                List<AttributeValue> l = new ArrayList<>();
                v.forEach(e -> l.add(value(e)));
                yield AttributeValue.fromL(l);
            }
            case "SS" -> {
                List<String> ss = new ArrayList<>();
                v.forEach(e -> ss.add(e.asText()));
                yield AttributeValue.fromSs(ss);
            }
            case "NS" -> {
                List<String> ns = new ArrayList<>();
                v.forEach(e -> ns.add(e.asText()));
                yield AttributeValue.fromNs(ns);
            }
            default -> throw new IllegalArgumentException("attribute type " + only.getKey() + " is not counted");
        };
    }

    static String markdown(List<Row> rows, String loadAtStart, String loadAtEnd) {
        StringBuilder sb = new StringBuilder();
        sb.append("## 21. Write units per stored reading, by table (issue 58)\n\n");
        sb.append(String.format(
                Locale.ROOT,
                "`./bench/run --only write-units`: %d devices through the production topology (parallelism %d) on its"
                        + " generator source against the instant backend, which sizes every item it is sent by"
                        + " DynamoDB's rules (a write unit per started KB). Time compressed %d times: event time,"
                        + " `latest.interval=PT10S`"
                        + " and a checkpoint every 10 s stand for the default `PT1M` and MSF's checkpoint a minute."
                        + " Counted"
                        + " over %d wall seconds (%d minutes of the fleet's) after %d s, inside one event hour: no"
                        + " `PT1H` bucket ends in the window. Load average %s at start, %s at the end. `plan` is"
                        + " `./query/run-query plan --devices %d --reading-interval …` for the same fleet"
                        + " (`TableWrites`). Late: none of these fleets sends a late reading.%n%n",
                DEVICES,
                BenchCluster.PARALLELISM,
                SPEEDUP,
                MEASURED.toSeconds(),
                MEASURED.toSeconds() * SPEEDUP / 60,
                WARM_UP.toSeconds(),
                loadAtStart,
                loadAtEnd,
                DEVICES));
        sb.append("| reading every | rollups | readings | period | latest | rollups | late | bookkeeping | total |"
                + " plan: latest | plan: rollups | plan: total | total ÷ plan |\n");
        sb.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Row r : rows) {
            sb.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %,d | %.3f | %.3f | %.3f | %.3f | %.5f | %.3f | %.3f | %.3f | %.3f | %.3f |%n",
                    r.every(),
                    r.rollups() ? ROLLUPS : "—",
                    r.readings(),
                    r.perReading(Kind.PERIOD),
                    r.perReading(Kind.LATEST),
                    r.perReading(Kind.ROLLUPS),
                    r.perReading(Kind.LATE),
                    r.perReading(Kind.BOOKKEEPING),
                    r.total(),
                    r.plan().latest(),
                    r.plan().rollups(),
                    r.plan().total(),
                    r.total() / r.plan().total()));
        }
        sb.append('\n');
        return sb.toString();
    }
}
