package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.periodtables.conf.ItemAttributes;
import io.periodtables.conf.LatestTable;
import io.periodtables.conf.Period;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.conf.Rollups;
import io.periodtables.conf.TableNaming;
import io.periodtables.conf.WriteSharding;
import io.periodtables.emulators.DynaliteExtension;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Rollups and the latest table (issue 30) on the production topology with the {@link Fleet}'s
 * three hourly periods (duplicates, an {@code eventId} resent, a late reading, one within the
 * grace): every rollup item equals the aggregate computed here, independently, from the items the
 * period tables hold; the latest table holds each device's newest stored reading; and a run at
 * parallelism 1 and one at parallelism 2 stopped and restored mid-way leave identical tables.
 */
class RollupsITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    private static final Duration BOUND = Duration.ofSeconds(60);

    @Test
    void rollupsEqualTheStoredItemsAggregatesAndLatestIsEachDevicesNewest() throws Exception {
        ReliabilityRun run = ReliabilityRun.of(config("roll_once"), Fleet.standard())
                .execute(new TestSource.Hooks(), env -> env.enableCheckpointing(200));
        TableSnapshot tables = run.assertExactlyOnce(DYNAMODB.emulator());

        Map<String, String> rollups = rollups(run.config);
        assertThat(rollups).as("rollup items").isNotEmpty().isEqualTo(expectedRollups(run.config, tables));
        assertThat(latest(run.config)).as("latest table").isEqualTo(expectedLatest(run.config, tables));
    }

    @Test
    void theSameInputGivesTheSameRollupsAtAnyParallelismAndAcrossARestore(@TempDir Path savepoints) throws Exception {
        ReliabilityRun single = ReliabilityRun.of(config("roll_p1"), Fleet.standard());
        single.execute(new TestSource.Hooks(), env -> {
            env.setParallelism(1);
            env.enableCheckpointing(200);
        });

        ReliabilityRun restored = ReliabilityRun.of(config("roll_p2"), Fleet.standard());
        TestSource.Hooks slow = new TestSource.Hooks();
        slow.rate = RateLimiterStrategy.perSecond(40);
        JobClient first = ArchiveCheck.submit(restored, slow, null);
        await("rollups written before the stop")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> !rollups(restored.config).isEmpty());
        String savepoint = first.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                .get(BOUND.toSeconds(), TimeUnit.SECONDS);
        ArchiveCheck.submit(restored, new TestSource.Hooks(), savepoint)
                .getJobExecutionResult()
                .get(BOUND.toSeconds(), TimeUnit.SECONDS);

        assertThat(rollups(restored.config)).isNotEmpty().isEqualTo(rollups(single.config));
        assertThat(latest(restored.config)).isNotEmpty().isEqualTo(latest(single.config));
    }

    private static PeriodTablesConfig config(String prefix) {
        return ReliabilityRun.config(DYNAMODB.emulator().endpoint(), prefix, "rollups.every", "PT15M,PT1H");
    }

    /** Every rollup item of the prefix: {@code <period label> <device> <sk>} → its numbers, normalized. */
    private static Map<String, String> rollups(PeriodTablesConfig config) {
        TableNaming naming = config.naming();
        Map<String, String> buckets = new TreeMap<>();
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            for (String table : client.listTablesPaginator().tableNames()) {
                var ref = naming.parse(table);
                if (ref.isEmpty() || ref.get().kind() != TableNaming.TableRef.Kind.ROLLUPS) {
                    continue;
                }
                client.scanPaginator(b -> b.tableName(table).consistentRead(true))
                        .items()
                        .forEach(item -> {
                            Rollups.Bucket bucket = Rollups.Bucket.of(item);
                            buckets.put(
                                    ref.get().period().label() + " " + bucket.device() + " "
                                            + item.get("sk").s(),
                                    describe(bucket.readings(), bucket.fields()));
                        });
            }
        }
        return buckets;
    }

    /** The same, computed from the period tables' items. */
    private static Map<String, String> expectedRollups(PeriodTablesConfig config, TableSnapshot tables) {
        TableNaming naming = config.naming();
        Rollups rollups = Rollups.of(config).orElseThrow();
        Map<String, List<Map.Entry<String, Map<String, AttributeValue>>>> byBucket = new TreeMap<>();
        tables.items().forEach((ref, item) -> {
            var table = naming.parse(ref.table());
            if (table.isEmpty() || table.get().kind() != TableNaming.TableRef.Kind.PERIOD) {
                return;
            }
            Period period = table.get().period();
            String device = ref.pk().substring(0, ref.pk().lastIndexOf('#'));
            long t = WriteSharding.eventMillisOf(ref.sk());
            for (Duration grain : rollups.grains()) {
                String key = period.label() + " " + device + " "
                        + Rollups.sortKey(grain, Rollups.bucketStart(period, grain, t));
                byBucket.computeIfAbsent(key, k -> new ArrayList<>()).add(Map.entry(ref.sk(), item));
            }
        });
        Map<String, String> expected = new TreeMap<>();
        byBucket.forEach((key, items) -> {
            items.sort(Map.Entry.comparingByKey()); // sort keys in event-time order
            Map<String, Rollups.FieldStats> fields = new TreeMap<>();
            Map<String, List<BigDecimal>> values = new TreeMap<>();
            for (var entry : items) {
                entry.getValue().forEach((name, value) -> {
                    if (value.n() != null && !name.equals(ItemAttributes.TTL)) {
                        values.computeIfAbsent(name, n -> new ArrayList<>()).add(new BigDecimal(value.n()));
                    }
                });
            }
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
                .append(":")
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
    private static Map<String, String> latest(PeriodTablesConfig config) {
        Map<String, String> latest = new TreeMap<>();
        try (DynamoDbClient client = DYNAMODB.emulator().syncClient()) {
            client.scanPaginator(b -> b.tableName(config.naming().latestTable()).consistentRead(true))
                    .items()
                    .forEach(item -> {
                        LatestTable.Latest l = LatestTable.Latest.of(item);
                        latest.put(
                                l.device(),
                                l.sortKey() + " "
                                        + l.table()
                                                .substring(
                                                        config.naming().prefix().length() + 1) + " "
                                        + ItemAttributes.toJson(Attributes.canonical(l.reading())));
                    });
        }
        return latest;
    }

    /** Each device's newest item over its period and late tables, by sort key. */
    private static Map<String, String> expectedLatest(PeriodTablesConfig config, TableSnapshot tables) {
        Map<String, String> newest = new TreeMap<>();
        Map<String, String> newestSk = new TreeMap<>();
        tables.items().forEach((ref, item) -> {
            if (ref.table().equals(config.naming().rejectedTable())) {
                return;
            }
            String device =
                    ref.pk().contains("#") ? ref.pk().substring(0, ref.pk().lastIndexOf('#')) : ref.pk();
            if (newestSk.containsKey(device) && newestSk.get(device).compareTo(ref.sk()) >= 0) {
                return;
            }
            Map<String, AttributeValue> payload = new TreeMap<>(item);
            payload.remove(ItemAttributes.PK);
            payload.remove(ItemAttributes.SK);
            String table = ref.table().equals(ExpectedTables.LATE)
                    ? tables.lateTables().iterator().next()
                    : ref.table();
            newestSk.put(device, ref.sk());
            newest.put(
                    device,
                    ref.sk() + " " + table.substring(config.naming().prefix().length() + 1) + " "
                            + ItemAttributes.toJson(payload));
        });
        return newest;
    }
}
