package io.periodtables.verification;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.core.dynamodb.LatestTable;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.Rollups;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;

/**
 * The checks of a run, read from its tables (and the job's watermark): each a {@link Check} with
 * what was expected and what was found. Reads only the run's own tables.
 */
final class ContractChecks {
    private static final String SEQ = "seq";
    private static final String TEMPERATURE = "temperature";

    private final Target target;
    private final RunResources resources;
    private final PeriodTablesConfig config;
    private final TableNaming naming;
    private final DataSet data;
    private final Supplier<Check> prebuilt;

    ContractChecks(
            Target target, RunResources resources, PeriodTablesConfig config, DataSet data, Supplier<Check> prebuilt) {
        this.target = target;
        this.resources = resources;
        this.config = config;
        this.naming = config.naming();
        this.data = data;
        this.prebuilt = prebuilt;
    }

    /** Every check, read now. */
    List<Check> evaluate() {
        Map<String, List<Map<String, AttributeValue>>> periodItems = new TreeMap<>();
        for (int n = 1; n <= 4; n++) {
            String table = naming.periodTableOf(data.periodStart(n));
            periodItems.put(table, scan(table));
        }
        Map<String, List<Map<String, AttributeValue>>> lateItems = new TreeMap<>();
        for (String table : resources.tables()) {
            if (naming.isLateTable(table)) {
                lateItems.put(table, scan(table));
            }
        }
        List<Check> checks = new ArrayList<>();
        checks.add(stored(periodItems));
        checks.add(duplicates(periodItems));
        checks.add(late(periodItems, lateItems));
        checks.add(rejected());
        checks.add(prebuilt.get());
        checks.add(lowered());
        checks.add(ttl());
        checks.add(rollups(periodItems));
        checks.add(latest(periodItems));
        checks.add(watermark());
        return checks;
    }

    private Check stored(Map<String, List<Map<String, AttributeValue>>> periodItems) {
        List<DataSet.Reading> expected = data.stored();
        List<String> missing = new ArrayList<>();
        List<String> doubled = new ArrayList<>();
        List<String> different = new ArrayList<>();
        for (DataSet.Reading r : expected) {
            List<Map<String, AttributeValue>> found = periodItems.getOrDefault(r.table(), List.of()).stream()
                    .filter(item -> isReading(item, r))
                    .toList();
            if (found.isEmpty()) {
                missing.add(r.device() + "@" + r.at());
            } else if (found.size() > 1) {
                doubled.add(r.device() + "@" + r.at());
            } else if (!holdsPayload(found.get(0), r)) {
                different.add(r.device() + "@" + r.at() + " " + payloadOf(found.get(0)));
            }
        }
        long items = periodItems.values().stream().mapToLong(List::size).sum();
        boolean ok = missing.isEmpty() && doubled.isEmpty() && different.isEmpty() && items == expected.size();
        return new Check(
                "every reading once in its period table with its payload",
                ok,
                expected.size() + " items in " + String.join(", ", periodItems.keySet())
                        + ", each with seq, temperature and ttl as put",
                ok
                        ? items + " items, each as put"
                        : items + " items" + listed("missing", missing) + listed("stored twice", doubled)
                                + listed("another payload", different));
    }

    private Check duplicates(Map<String, List<Map<String, AttributeValue>>> periodItems) {
        List<String> counts = new ArrayList<>();
        boolean ok = true;
        for (DataSet.Reading r : data.duplicates()) {
            long n = periodItems.getOrDefault(r.table(), List.of()).stream()
                    .filter(item -> isReading(item, r))
                    .count();
            ok &= n == 1;
            counts.add("seq " + r.seq() + ": " + n);
        }
        return new Check(
                "duplicates stored once",
                ok,
                data.duplicates().size() + " readings put twice, one item each",
                String.join(", ", counts));
    }

    private Check late(
            Map<String, List<Map<String, AttributeValue>>> periodItems,
            Map<String, List<Map<String, AttributeValue>>> lateItems) {
        DataSet.Reading late = data.late();
        List<String> in = new ArrayList<>();
        boolean payload = true;
        for (var tables : List.of(periodItems, lateItems)) {
            for (var table : tables.entrySet()) {
                for (var item : table.getValue()) {
                    if (isReading(item, late)) {
                        in.add(table.getKey());
                        payload &= holdsPayload(item, late);
                    }
                }
            }
        }
        boolean ok = in.size() == 1 && naming.isLateTable(in.get(0)) && payload;
        return new Check(
                "the late reading in the late table only",
                ok,
                "seq " + late.seq() + " (" + late.at() + ", put after its period's lateness) once in " + naming.prefix()
                        + "_late_<month> and in no period table",
                in.isEmpty()
                        ? "it nowhere"
                        : "it in " + String.join(", ", in) + (payload ? "" : " with another payload"));
    }

    private Check rejected() {
        String table = naming.rejectedTable();
        List<Map<String, AttributeValue>> items = scan(table);
        List<String> found = new ArrayList<>();
        boolean ok = items.size() == data.bad().size();
        for (DataSet.Bad bad : data.bad()) {
            boolean there = items.stream()
                    .anyMatch(item -> s(item, ItemAttributes.PK).startsWith(bad.reason() + "#")
                            && bad.raw().equals(s(item, "raw"))
                            && item.containsKey("reason"));
            ok &= there;
            found.add(bad.reason() + (there ? "" : " missing"));
        }
        return new Check(
                "bad input in the rejected table with its reason",
                ok,
                data.bad().size() + " items in " + table + ": "
                        + data.bad().stream().map(DataSet.Bad::reason).collect(Collectors.joining(", "))
                        + ", each with its raw record",
                items.size() + " items: " + String.join(", ", found));
    }

    private Check lowered() {
        Capacity current = config.get(TableKeys.CAPACITY_CURRENT);
        Capacity previous = config.get(TableKeys.CAPACITY_PREVIOUS);
        Capacity older = config.get(TableKeys.CAPACITY_OLDER);
        List<String> found = new ArrayList<>();
        boolean ok = true;
        for (int n = 1; n <= 3; n++) {
            String table = naming.periodTableOf(data.periodStart(n));
            ProvisionedThroughputDescription pt = describe(table);
            if (pt == null) {
                ok = false;
                found.add(table + " not there");
                continue;
            }
            long w = pt.writeCapacityUnits();
            long r = pt.readCapacityUnits();
            boolean low = (w == previous.writeUnits() && r == previous.readUnits())
                    || (w == older.writeUnits() && r == older.readUnits());
            Long decreases = pt.numberOfDecreasesToday();
            boolean deferred = !low && decreases != null && decreases >= 4;
            ok &= low || deferred;
            found.add(table + " " + w + "/" + r
                    + (deferred ? " (lowering deferred by DynamoDB's decrease quota: " + decreases + " today)" : ""));
        }
        return new Check(
                "closed tables lowered",
                ok,
                "the closed periods' tables lowered from " + current + " to " + previous + " or " + older,
                String.join(", ", found));
    }

    private Check ttl() {
        List<String> found = new ArrayList<>();
        boolean ok = true;
        for (int n = 1; n <= 3; n++) {
            String table = naming.periodTableOf(data.periodStart(n));
            String status;
            try {
                TimeToLiveDescription ttl = PermissionDenied.call(
                        "dynamodb:DescribeTimeToLive",
                        () -> target.dynamo
                                .describeTimeToLive(b -> b.tableName(table))
                                .timeToLiveDescription());
                status = ttl.timeToLiveStatusAsString()
                        + (ttl.attributeName() == null ? "" : " on " + ttl.attributeName());
            } catch (ResourceNotFoundException e) {
                status = "no table";
            }
            ok &= status.equals("ENABLED on " + ItemAttributes.TTL);
            found.add(table + " " + status);
        }
        return new Check("TTL enabled", ok, "ENABLED on ttl in the period tables", String.join(", ", found));
    }

    private Check rollups(Map<String, List<Map<String, AttributeValue>>> periodItems) {
        Duration grain = config.get(ConfigKeys.ROLLUPS_EVERY).get(0);
        Map<String, String> expected = new TreeMap<>();
        Map<String, String> found = new TreeMap<>();
        // the fourth period is open: its buckets are still filling
        for (var table : periodItems.entrySet().stream().limit(3).toList()) {
            Period period = naming.parse(table.getKey()).orElseThrow().period();
            Map<String, long[]> counts = new TreeMap<>();
            Map<String, BigDecimal> sums = new HashMap<>();
            for (var item : table.getValue()) {
                long at = WriteSharding.eventMillisOf(s(item, ItemAttributes.SK));
                String key = deviceOf(item) + " " + Rollups.sortKey(grain, Rollups.bucketStart(period, grain, at));
                counts.computeIfAbsent(key, k -> new long[1])[0]++;
                sums.merge(key, new BigDecimal(item.get(TEMPERATURE).n()), BigDecimal::add);
            }
            counts.forEach((key, n) -> expected.put(
                    key,
                    n[0] + " readings, sum "
                            + sums.get(key).stripTrailingZeros().toPlainString()));
            for (var item : scan(naming.rollupsTable(period))) {
                Rollups.Bucket bucket = Rollups.Bucket.of(item);
                if (!bucket.grain().equals(grain)) {
                    continue;
                }
                Rollups.FieldStats stats = bucket.fields().get(TEMPERATURE);
                found.put(
                        bucket.device() + " " + s(item, ItemAttributes.SK),
                        bucket.readings() + " readings, sum "
                                + (stats == null
                                        ? "-"
                                        : stats.sum().stripTrailingZeros().toPlainString()));
            }
        }
        List<String> differ = new ArrayList<>();
        expected.forEach((key, value) -> {
            if (!value.equals(found.get(key))) {
                differ.add(key + ": " + found.getOrDefault(key, "no bucket") + " for " + value + " stored");
            }
        });
        found.keySet().stream()
                .filter(k -> !expected.containsKey(k))
                .forEach(k -> differ.add(k + ": a bucket without stored items"));
        boolean ok = differ.isEmpty() && !expected.isEmpty();
        return new Check(
                "rollups equal to the stored items",
                ok,
                expected.size() + " " + grain + " buckets whose readings and temperature sum are the period tables'",
                ok ? found.size() + " buckets, all equal" : differ.size() + " differ" + listed("", differ));
    }

    private Check latest(Map<String, List<Map<String, AttributeValue>>> periodItems) {
        Map<String, Map<String, AttributeValue>> newest = new TreeMap<>();
        Map<String, String> tableOf = new HashMap<>();
        periodItems.forEach((table, items) -> items.forEach(item -> {
            String device = deviceOf(item);
            Map<String, AttributeValue> seen = newest.get(device);
            if (seen == null || s(item, ItemAttributes.SK).compareTo(s(seen, ItemAttributes.SK)) > 0) {
                newest.put(device, item);
                tableOf.put(device, table);
            }
        }));
        Map<String, Map<String, AttributeValue>> latest = new HashMap<>();
        scan(naming.latestTable()).forEach(item -> latest.put(s(item, ItemAttributes.PK), item));
        List<String> differ = new ArrayList<>();
        newest.forEach((device, item) -> {
            Map<String, AttributeValue> l = latest.get(device);
            if (l == null) {
                differ.add(device + " missing");
            } else if (!s(l, ItemAttributes.SK).equals(s(item, ItemAttributes.SK))
                    || !tableOf.get(device).equals(s(l, LatestTable.TABLE))
                    || !withoutTtl(l.get(LatestTable.READING).m()).equals(payloadOf(item))) {
                differ.add(device + " at " + s(l, ItemAttributes.SK) + " in " + s(l, LatestTable.TABLE));
            }
        });
        boolean ok = differ.isEmpty() && newest.size() == DataSet.DEVICES.size() && latest.size() == newest.size();
        return new Check(
                "latest equal to the newest item",
                ok,
                "each of the " + DataSet.DEVICES.size() + " devices' newest stored item, its table and payload, in "
                        + naming.latestTable(),
                ok ? latest.size() + " devices, each its newest" : latest.size() + " items" + listed("", differ));
    }

    private Check watermark() {
        Instant after = data.firstAfterSplit().at();
        var mark = WatermarkProbe.watermark();
        boolean ok = mark.isPresent() && !mark.get().isBefore(after);
        return new Check(
                "the watermark past the reshard",
                ok,
                "the job's watermark at or past " + after + " (the first reading put after the split)",
                mark.map(Instant::toString).orElse("none yet"));
    }

    // ----------------------------------------------------------------------------------------

    private boolean isReading(Map<String, AttributeValue> item, DataSet.Reading r) {
        return r.device().equals(deviceOf(item))
                && WriteSharding.eventMillisOf(s(item, ItemAttributes.SK)) == r.at().toEpochMilli()
                && item.containsKey(SEQ)
                && new BigDecimal(item.get(SEQ).n()).longValue() == r.seq();
    }

    /** Exactly pk, sk, seq, temperature and ttl = event second + tables.ttl. */
    private boolean holdsPayload(Map<String, AttributeValue> item, DataSet.Reading r) {
        Duration ttl = config.get(TableKeys.TABLES_TTL);
        AttributeValue stored = item.get(ItemAttributes.TTL);
        long expectedTtl = Math.floorDiv(r.at().toEpochMilli(), 1000) + ttl.getSeconds();
        return item.keySet()
                        .equals(java.util.Set.of(
                                ItemAttributes.PK, ItemAttributes.SK, ItemAttributes.TTL, SEQ, TEMPERATURE))
                && new BigDecimal(item.get(TEMPERATURE).n()).compareTo(r.temperature()) == 0
                && stored != null
                && Long.parseLong(stored.n()) == expectedTtl;
    }

    private static Map<String, AttributeValue> payloadOf(Map<String, AttributeValue> item) {
        Map<String, AttributeValue> payload = new TreeMap<>(item);
        payload.remove(ItemAttributes.PK);
        payload.remove(ItemAttributes.SK);
        payload.remove(ItemAttributes.TTL);
        return payload;
    }

    private static Map<String, AttributeValue> withoutTtl(Map<String, AttributeValue> reading) {
        Map<String, AttributeValue> payload = new TreeMap<>(reading == null ? Map.of() : reading);
        payload.remove(ItemAttributes.TTL);
        return payload;
    }

    /** The device of a period or late table item: {@code pk} less its {@code #k} shard suffix. */
    private static String deviceOf(Map<String, AttributeValue> item) {
        String pk = s(item, ItemAttributes.PK);
        int hash = pk.lastIndexOf('#');
        return hash < 0 ? pk : pk.substring(0, hash);
    }

    private static String s(Map<String, AttributeValue> item, String name) {
        AttributeValue v = item.get(name);
        return v == null ? null : Objects.requireNonNullElse(v.s(), v.n());
    }

    private static String listed(String what, List<String> items) {
        if (items.isEmpty()) {
            return "";
        }
        List<String> shown = items.size() > 5 ? items.subList(0, 5) : items;
        return "; " + (what.isEmpty() ? "" : what + " ") + String.join(", ", shown)
                + (items.size() > shown.size() ? " and " + (items.size() - shown.size()) + " more" : "");
    }

    private ProvisionedThroughputDescription describe(String table) {
        try {
            return PermissionDenied.call(
                    "dynamodb:DescribeTable",
                    () -> target.dynamo
                            .describeTable(b -> b.tableName(table))
                            .table()
                            .provisionedThroughput());
        } catch (ResourceNotFoundException e) {
            return null;
        }
    }

    /** Every item of one of the run's tables (none when it is not there); strongly consistent. */
    private List<Map<String, AttributeValue>> scan(String table) {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        try {
            do {
                Map<String, AttributeValue> from = start;
                ScanResponse page = PermissionDenied.call(
                        "dynamodb:Scan",
                        () -> target.dynamo.scan(
                                b -> b.tableName(table).consistentRead(true).exclusiveStartKey(from)));
                items.addAll(page.items());
                start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty()
                        ? page.lastEvaluatedKey()
                        : null;
            } while (start != null);
        } catch (ResourceNotFoundException e) {
            return List.of();
        }
        return items;
    }
}
