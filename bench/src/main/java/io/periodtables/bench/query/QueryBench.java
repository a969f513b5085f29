package io.periodtables.bench.query;

import io.periodtables.bench.BenchLog;
import io.periodtables.bench.MachineFacts;
import io.periodtables.bench.Stats;
import io.periodtables.bench.Tables;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.emulators.Dynalite;
import io.periodtables.query.QueryResult;
import io.periodtables.query.QuerySettings;
import io.periodtables.query.ReadingsQuery;
import io.periodtables.query.StoredReading;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Latency of reading back with {@link ReadingsQuery} against dynalite (a node process of its own): one
 * device's day ({@code range} over 24 hourly tables) for 1, 4 and 16 shards, and its newest 1
 * and 100 readings ({@code latest}). Rounds are interleaved across shard counts after a warm-up.
 */
public final class QueryBench {

    static final int[] SHARDS = {1, 4, 16};
    static final int OTHER_DEVICES = 40;
    static final int WARM_UP = 3;
    static final int MEASURED = 10;

    /** The three queries of one round. */
    enum Kind {
        RANGE("`range`, one day"),
        LATEST_1("`latest`, n = 1"),
        LATEST_100("`latest`, n = 100");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** One timed query: wall millis, its report's Query count, requests sent by operation, emulator CPU millis. */
    record Sample(
            double millis, long reportedRequests, Map<String, Long> sent, double serverCpuMillis, long readings) {}

    private QueryBench() {}

    public static String run() throws Exception {
        String load = MachineFacts.loadAverage();
        Instant from = LocalDate.now(ZoneOffset.UTC)
                .minusDays(2)
                .atStartOfDay(ZoneOffset.UTC)
                .toInstant();
        Instant to = from.plus(Duration.ofDays(1));
        Map<Integer, Map<Kind, List<Sample>>> samples = new LinkedHashMap<>();
        long items = 0;
        double writeSeconds;
        try (Dynalite dynamoDb = Tables.dynamoDb();
                DynamoDbClient admin = dynamoDb.syncClient()) {
            Map<Integer, PeriodTablesConfig> configs = new LinkedHashMap<>();
            long writeStart = System.nanoTime();
            for (int shards : SHARDS) {
                PeriodTablesConfig config = ConfigLoader.fromMap(keys("qry" + shards, dynamoDb, shards), true);
                configs.put(shards, config);
                items += QueryData.write(admin, config, from, to, OTHER_DEVICES);
                BenchLog.log(String.format(Locale.ROOT, "query: %d shard(s): %,d items written so far", shards, items));
            }
            writeSeconds = (System.nanoTime() - writeStart) / 1e9;

            Map<Integer, DynamoDbAsyncClient> clients = new HashMap<>();
            Map<Integer, ReadingsQuery> queries = new HashMap<>();
            for (int shards : SHARDS) {
                DynamoDbAsyncClient client = DynamoDbClients.of(configs.get(shards))
                        .withInterceptors(List.of(RequestCounter.class))
                        .newAsyncClient(64);
                clients.put(shards, client);
                queries.put(
                        shards,
                        new ReadingsQuery(configs.get(shards), client, QuerySettings.defaults(), Clock.systemUTC()));
                samples.put(shards, new EnumMap<>(Kind.class));
            }
            try {
                for (int round = 0; round < WARM_UP + MEASURED; round++) {
                    for (int shards : SHARDS) {
                        for (Kind kind : Kind.values()) {
                            Sample sample = once(queries.get(shards), kind, from, to, dynamoDb);
                            samples.get(shards)
                                    .computeIfAbsent(kind, k -> new ArrayList<>())
                                    .add(sample);
                        }
                    }
                    BenchLog.log("query: round " + (round + 1) + " of " + (WARM_UP + MEASURED) + " done");
                }
            } finally {
                queries.values().forEach(ReadingsQuery::close);
                clients.values().forEach(DynamoDbAsyncClient::close);
            }
        }
        return markdown(samples, items, writeSeconds, load);
    }

    private static Map<String, String> keys(String prefix, Dynalite dynamoDb, int shards) {
        Map<String, String> keys = new HashMap<>();
        keys.put("tables.prefix", prefix);
        keys.put("tables.period", "PT1H");
        keys.put("tables.shards", Integer.toString(shards));
        keys.put("dynamodb.endpoint", dynamoDb.endpoint().toString());
        return keys;
    }

    private static Sample once(ReadingsQuery query, Kind kind, Instant from, Instant to, Dynalite dynamoDb) {
        RequestCounter.drain();
        double cpuBefore = dynamoDb.cpuSeconds();
        long start = System.nanoTime();
        QueryResult result = switch (kind) {
            case RANGE -> query.range(QueryData.DEVICE, from, to);
            case LATEST_1 -> query.latest(QueryData.DEVICE, 1);
            case LATEST_100 -> query.latest(QueryData.DEVICE, 100);
        };
        double millis = (System.nanoTime() - start) / 1e6;
        double cpuMillis = (dynamoDb.cpuSeconds() - cpuBefore) * 1000;
        check(kind, result.readings(), from, to);
        return new Sample(
                millis,
                result.report().requests(),
                RequestCounter.drain(),
                cpuMillis,
                result.report().readings());
    }

    /** The bench measures correct answers only: every reading of the day in order, or the newest ones. */
    static void check(Kind kind, List<StoredReading> readings, Instant from, Instant to) {
        long step = QueryData.DEVICE_STEP_MILLIS;
        int expected = switch (kind) {
            case RANGE -> (int) (Duration.between(from, to).toMillis() / step);
            case LATEST_1 -> 1;
            case LATEST_100 -> 100;
        };
        if (readings.size() != expected) {
            throw new IllegalStateException(kind + " returned " + readings.size() + " readings, expected " + expected);
        }
        for (int i = 0; i < readings.size(); i++) {
            long want = kind == Kind.RANGE ? from.toEpochMilli() + i * step : to.toEpochMilli() - (i + 1) * step;
            if (readings.get(i).eventTime().toEpochMilli() != want) {
                throw new IllegalStateException(kind + ": reading " + i + " is of "
                        + readings.get(i).eventTime() + ", expected " + Instant.ofEpochMilli(want));
            }
        }
    }

    static String markdown(
            Map<Integer, Map<Kind, List<Sample>>> samples, long items, double writeSeconds, String load) {
        StringBuilder md = new StringBuilder("## 7. Reading back: range and latest\n\n");
        md.append(String.format(
                Locale.ROOT,
                "`ReadingsQuery` (module `query`, `QuerySettings.defaults()`: 4 tables in "
                        + "flight, each with all its shards in parallel; DynamoDB's page size; eventually consistent"
                        + " reads) "
                        + "against dynalite (a node process of its own). For each shard count, one day of hourly"
                        + " tables "
                        + "(`tables.period=PT1H`, 24 tables tagged `period-tables.shards`, as the rotation creates"
                        + " them) holds `%s` with a reading every 10 s (8,640) and %d other devices with one a minute; "
                        + "%,d items in all (3 shard counts), written with direct `BatchWriteItem`s of the sink's item "
                        + "layout in %.1f s. One query instance per shard count; %d warm-up rounds, then %d rounds, "
                        + "interleaved (each round: every shard count, `range` then `latest 1` then `latest 100`). "
                        + "Load average at start %s.\n\n",
                QueryData.DEVICE,
                OTHER_DEVICES,
                items,
                writeSeconds,
                WARM_UP,
                MEASURED,
                load));
        md.append("| query | shards | `Query` requests (`QueryReport`) | requests sent per query | readings "
                + "| first query, cold | median (min–max) | dynalite CPU per query |\n");
        md.append("|---|---|---|---|---|---|---|---|\n");
        for (Kind kind : Kind.values()) {
            for (Map.Entry<Integer, Map<Kind, List<Sample>>> e : samples.entrySet()) {
                List<Sample> all = e.getValue().get(kind);
                Sample cold = all.get(0);
                List<Sample> measured = all.subList(WARM_UP, all.size());
                Sample last = measured.get(measured.size() - 1);
                Stats millis = Stats.of(measured.stream().map(Sample::millis).toList());
                Stats cpu =
                        Stats.of(measured.stream().map(Sample::serverCpuMillis).toList());
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %d | %d | %s | %,d | %.0f ms (%s) | **%s** | %.0f ms |\n",
                        kind.label,
                        e.getKey(),
                        last.reportedRequests(),
                        sent(last.sent()),
                        last.readings(),
                        cold.millis(),
                        sent(cold.sent()),
                        millis.format("%.1f ms"),
                        cpu.median()));
            }
        }
        md.append("\n`requests sent` counts every HTTP request of the query's client by operation (an SDK "
                + "interceptor); `QueryReport.requests` counts the `Query` requests of the tables whose answers the "
                + "query used (`latest` may have had more tables in flight). The cold first query also looks up "
                + "each table's shard count once (`DescribeTable` + `ListTagsOfResource`, cached per query "
                + "instance; the late tables `range` asks about do not exist here). `latest` lists the tables "
                + "(`ListTables`) on every call. dynalite CPU is the emulator JVM's user + system time "
                + "during the query (10 ms ticks).\n");
        return md.toString();
    }

    private static String sent(Map<String, Long> byOperation) {
        if (byOperation.isEmpty()) {
            return "none";
        }
        return byOperation.entrySet().stream()
                .map(e -> e.getValue() + " " + e.getKey())
                .collect(Collectors.joining(", "));
    }
}
