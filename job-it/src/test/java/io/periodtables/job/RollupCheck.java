package io.periodtables.job;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.LatestTable;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.Rollups;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongPredicate;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * Reads rollups and the latest table back, and computes what they must hold from the items of
 * the period (and late) tables alone, without the job's code: the tests compare the two.
 */
public final class RollupCheck {
    private RollupCheck() {}

    /** Every rollup item of the prefix: {@code <period label> <device> <sk>} → its numbers, normalized. */
    public static Map<String, String> stored(DynamoDbClient client, PeriodTablesConfig config) {
        return stored(client, config, end -> true);
    }

    /** As {@link #stored(DynamoDbClient, PeriodTablesConfig)}, the buckets whose end {@code ended} accepts. */
    public static Map<String, String> stored(DynamoDbClient client, PeriodTablesConfig config, LongPredicate ended) {
        TableNaming naming = config.naming();
        Map<String, String> buckets = new TreeMap<>();
        for (String table : client.listTablesPaginator().tableNames()) {
            var ref = naming.parse(table);
            if (ref.isEmpty() || ref.get().kind() != TableNaming.TableRef.Kind.ROLLUPS) {
                continue;
            }
            try {
                client.scanPaginator(b -> b.tableName(table).consistentRead(true))
                        .items()
                        .forEach(item -> {
                            Rollups.Bucket bucket = Rollups.Bucket.of(item);
                            Period period = ref.get().period();
                            if (!ended.test(Rollups.bucketEnd(period, bucket.grain(), bucket.startMillis()))) {
                                return;
                            }
                            buckets.put(
                                    ref.get().period().label() + " " + bucket.device() + " "
                                            + item.get("sk").s(),
                                    describe(bucket.readings(), bucket.fields()));
                        });
            } catch (ResourceNotFoundException creating) {
                // listed but still CREATING (DynamoDB answers its items "not found"): no buckets yet
            }
        }
        return buckets;
    }

    /**
     * The rollups of {@code periodItems} (table name → its items, as stored), for the buckets
     * whose end {@code ended} accepts: each item counted once, its top-level numbers.
     */
    public static Map<String, String> expected(
            PeriodTablesConfig config,
            Map<String, List<Map<String, AttributeValue>>> periodItems,
            LongPredicate ended) {
        TableNaming naming = config.naming();
        Rollups rollups = Rollups.of(config).orElseThrow();
        Map<String, List<Map<String, AttributeValue>>> byBucket = new TreeMap<>();
        periodItems.forEach((tableName, items) -> {
            var table = naming.parse(tableName);
            if (table.isEmpty() || table.get().kind() != TableNaming.TableRef.Kind.PERIOD) {
                return;
            }
            Period period = table.get().period();
            for (Map<String, AttributeValue> item : items) {
                String pk = item.get(ItemAttributes.PK).s();
                String device =
                        pk.contains("#") && config.sharding().shards() > 1 ? pk.substring(0, pk.lastIndexOf('#')) : pk;
                long t = WriteSharding.eventMillisOf(item.get(ItemAttributes.SK).s());
                for (Duration grain : rollups.grains()) {
                    long start = Rollups.bucketStart(period, grain, t);
                    if (ended.test(Rollups.bucketEnd(period, grain, start))) {
                        byBucket.computeIfAbsent(
                                        period.label() + " " + device + " " + Rollups.sortKey(grain, start),
                                        k -> new ArrayList<>())
                                .add(item);
                    }
                }
            }
        });
        Map<String, String> expected = new TreeMap<>();
        byBucket.forEach((key, items) -> {
            items.sort((a, b) -> a.get(ItemAttributes.SK)
                    .s()
                    .compareTo(b.get(ItemAttributes.SK).s()));
            Map<String, List<BigDecimal>> values = new TreeMap<>();
            for (Map<String, AttributeValue> item : items) {
                item.forEach((name, value) -> {
                    if (value.n() != null && !name.equals(ItemAttributes.TTL)) {
                        values.computeIfAbsent(name, n -> new ArrayList<>()).add(new BigDecimal(value.n()));
                    }
                });
            }
            Map<String, Rollups.FieldStats> fields = new TreeMap<>();
            values.forEach((name, list) -> fields.put(
                    name,
                    new Rollups.FieldStats(
                            list.size(),
                            list.stream().min(BigDecimal::compareTo).orElseThrow(),
                            list.stream().max(BigDecimal::compareTo).orElseThrow(),
                            list.stream().reduce(BigDecimal.ZERO, BigDecimal::add),
                            list.get(0),
                            list.get(list.size() - 1))));
            expected.put(key, describe(items.size(), fields));
        });
        return expected;
    }

    private static String describe(long readings, Map<String, Rollups.FieldStats> fields) {
        StringBuilder text = new StringBuilder("readings=" + readings);
        fields.forEach((name, s) -> text.append(' ')
                .append(name)
                .append(':')
                .append(s.count())
                .append('/')
                .append(plain(s.min()))
                .append('/')
                .append(plain(s.max()))
                .append('/')
                .append(plain(s.sum()))
                .append('/')
                .append(plain(s.first()))
                .append('/')
                .append(plain(s.last())));
        return text.toString();
    }

    private static String plain(BigDecimal value) {
        return value.signum() == 0 ? "0" : value.stripTrailingZeros().toPlainString();
    }

    /** The latest table: device → the sort key, table (without the prefix) and payload of its reading. */
    public static Map<String, String> latest(DynamoDbClient client, PeriodTablesConfig config) {
        Map<String, String> latest = new TreeMap<>();
        int prefix = config.naming().prefix().length() + 1;
        client.scanPaginator(b -> b.tableName(config.naming().latestTable()).consistentRead(true))
                .items()
                .forEach(item -> {
                    LatestTable.Latest l = LatestTable.Latest.of(item);
                    latest.put(
                            l.device(),
                            l.sortKey() + " " + l.table().substring(prefix) + " "
                                    + ItemAttributes.toJson(TableContents.canonical(l.reading())));
                });
        return latest;
    }

    /** Each device's newest item over {@code items} (table name → items of period and late tables), by sort key. */
    public static Map<String, String> expectedLatest(
            PeriodTablesConfig config, Map<String, List<Map<String, AttributeValue>>> items) {
        Map<String, String> newest = new TreeMap<>();
        Map<String, String> newestSk = new TreeMap<>();
        int prefix = config.naming().prefix().length() + 1;
        items.forEach((table, list) -> {
            for (Map<String, AttributeValue> item : list) {
                String pk = item.get(ItemAttributes.PK).s();
                String sk = item.get(ItemAttributes.SK).s();
                String device =
                        pk.contains("#") && config.sharding().shards() > 1 ? pk.substring(0, pk.lastIndexOf('#')) : pk;
                if (newestSk.containsKey(device) && newestSk.get(device).compareTo(sk) >= 0) {
                    continue;
                }
                Map<String, AttributeValue> payload = new TreeMap<>(item);
                payload.remove(ItemAttributes.PK);
                payload.remove(ItemAttributes.SK);
                newestSk.put(device, sk);
                newest.put(
                        device,
                        sk + " " + table.substring(prefix) + " "
                                + ItemAttributes.toJson(TableContents.canonical(payload)));
            }
        });
        return newest;
    }
}
