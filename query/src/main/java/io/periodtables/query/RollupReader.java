package io.periodtables.query;

import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.Rollups;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/**
 * {@code rollup}: the buckets of one grain whose start is in {@code [from, to)}, from the rollups
 * table of each period the range overlaps, one {@code Query} per table ({@code pk} = the device,
 * {@code sk BETWEEN <grain>#<from> AND <grain>#<to - 1 ms>}, every page followed) with a
 * read-ahead of {@code tablesInFlight} tables. A bucket never spans two periods, so the tables'
 * answers in period order are in time order. When the range holds no bucket of the grain, a grain
 * the job never wrote is an error naming the stored ones rather than an empty answer
 * ({@link #checkStored}).
 */
final class RollupReader {

    private final DynamoDbAsyncClient client;
    private final DynamoDbRetry retry;
    private final TableNaming naming;
    private final int pageSize;
    private final int tablesInFlight;

    RollupReader(
            DynamoDbAsyncClient client, DynamoDbRetry retry, TableNaming naming, int pageSize, int tablesInFlight) {
        this.client = client;
        this.retry = retry;
        this.naming = naming;
        this.pageSize = pageSize;
        this.tablesInFlight = tablesInFlight;
    }

    RollupResult read(String device, Instant from, Instant to, Duration grain) {
        String low = Rollups.sortKey(grain, from.toEpochMilli());
        String high = Rollups.sortKey(grain, to.toEpochMilli() - 1);
        List<Rollups.Bucket> buckets = new ArrayList<>();
        List<String> read = new ArrayList<>();
        Period newest = null;
        List<String> missing = new ArrayList<>();
        AtomicInteger requests = new AtomicInteger();

        Iterator<Period> periods =
                TablePlan.periodsOf(naming.calendar(), from, to).iterator();
        ArrayDeque<Period> names = new ArrayDeque<>();
        ArrayDeque<CompletableFuture<Optional<List<Rollups.Bucket>>>> inFlight = new ArrayDeque<>();
        while (periods.hasNext() || !inFlight.isEmpty()) {
            while (inFlight.size() < tablesInFlight && periods.hasNext()) {
                names.add(periods.next());
                inFlight.add(query(naming.rollupsTable(names.peekLast()), device, low, high, requests));
            }
            Period period = names.poll();
            String table = naming.rollupsTable(period);
            Optional<List<Rollups.Bucket>> found = Futures.await(inFlight.poll(), "Reading rollups table " + table);
            if (found.isPresent()) {
                read.add(table);
                newest = period;
                buckets.addAll(found.get());
            } else {
                missing.add(table);
            }
        }
        if (read.isEmpty()) {
            throw new NotStoredException("No rollups table for [" + from + ", " + to + "): "
                    + span(missing) + " do(es) not exist; the job writes them when rollups.every is set,"
                    + " and deletes them with their period tables");
        }
        if (buckets.isEmpty()) {
            checkStored(grain, read, newest, device, requests);
        }
        return new RollupResult(grain, buckets, read, missing, requests.get());
    }

    /**
     * Refuses a grain the job does not write. The newest table read is asked which grains it holds
     * and, when it lacks this one, the table of the period before it: a grain's bucket is written
     * when the grain ends, so the table of a period that has just begun may hold only the shorter
     * grains yet, while the one before holds every grain that ended in it. Two tables at most, so
     * an empty answer costs a bounded number of requests however long the range.
     */
    private void checkStored(Duration grain, List<String> read, Period newest, String device, AtomicInteger requests) {
        String newestTable = read.get(read.size() - 1);
        TreeSet<String> grains =
                Futures.await(grains(newestTable, device, requests), "Reading rollups table " + newestTable);
        if (grains.contains(grain.toString())) {
            return;
        }
        String before = naming.rollupsTable(naming.calendar().previous(newest));
        TreeSet<String> earlier = Futures.await(
                grains(before, device, requests)
                        .exceptionallyCompose(error -> DynamoDbRetry.isNotFound(error)
                                ? CompletableFuture.completedFuture(new TreeSet<>())
                                : CompletableFuture.failedFuture(DynamoDbRetry.unwrap(error))),
                "Reading rollups table " + before);
        if (earlier.contains(grain.toString())) {
            return;
        }
        if (!grains.isEmpty() || !earlier.isEmpty()) {
            String held = grains.isEmpty() ? "" : newestTable + " holds " + String.join(", ", grains);
            String heldBefore =
                    earlier.isEmpty() || earlier.equals(grains) ? "" : before + " holds " + String.join(", ", earlier);
            throw new NotStoredException("No " + grain + " rollups in " + span(read) + ": "
                    + String.join(
                            "; ",
                            Stream.of(held, heldBefore)
                                    .filter(s -> !s.isEmpty())
                                    .toList())
                    + " (the job's rollups.every)");
        }
    }

    private static String span(List<String> tables) {
        return tables.size() == 1 ? tables.get(0) : tables.get(0) + " … " + tables.get(tables.size() - 1);
    }

    /** The table's buckets between the two sort keys, oldest first; empty when the table does not exist. */
    private CompletableFuture<Optional<List<Rollups.Bucket>>> query(
            String table, String device, String low, String high, AtomicInteger requests) {
        QueryRequest.Builder query = QueryRequest.builder()
                .tableName(table)
                .keyConditionExpression(
                        ItemAttributes.PK + " = :pk AND " + ItemAttributes.SK + " BETWEEN :low AND :high")
                .expressionAttributeValues(Map.of(
                        ":pk", AttributeValue.fromS(device),
                        ":low", AttributeValue.fromS(low),
                        ":high", AttributeValue.fromS(high)));
        if (pageSize > 0) {
            query.limit(pageSize);
        }
        return pages(query.build(), null, new ArrayList<>(), requests)
                .thenApply(Optional::of)
                .exceptionallyCompose(error -> DynamoDbRetry.isNotFound(error)
                        ? CompletableFuture.completedFuture(Optional.empty())
                        : CompletableFuture.failedFuture(DynamoDbRetry.unwrap(error)));
    }

    private CompletableFuture<List<Rollups.Bucket>> pages(
            QueryRequest query,
            Map<String, AttributeValue> startKey,
            List<Rollups.Bucket> found,
            AtomicInteger requests) {
        QueryRequest page = startKey == null
                ? query
                : query.toBuilder().exclusiveStartKey(startKey).build();
        return retry.call(() -> {
                    requests.incrementAndGet();
                    return client.query(page);
                })
                .thenCompose((QueryResponse response) -> {
                    response.items().forEach(item -> found.add(Rollups.Bucket.of(item)));
                    return response.hasLastEvaluatedKey()
                                    && !response.lastEvaluatedKey().isEmpty()
                            ? pages(query, response.lastEvaluatedKey(), found, requests)
                            : CompletableFuture.completedFuture(found);
                });
    }

    /**
     * The grains {@code table} holds for {@code device}, or, when it holds none of the device's,
     * for the device of its first item: one {@code Query} per grain, each starting after the
     * previous grain's sort keys ({@code <grain>#…} sorts before {@code <grain>$}).
     */
    private CompletableFuture<TreeSet<String>> grains(String table, String device, AtomicInteger requests) {
        return grainsOf(table, device, null, new TreeSet<>(), requests).thenCompose(grains -> {
            if (!grains.isEmpty()) {
                return CompletableFuture.completedFuture(grains);
            }
            return retry.call(() -> {
                        requests.incrementAndGet();
                        return client.scan(b -> b.tableName(table).limit(1));
                    })
                    .thenCompose((ScanResponse any) -> any.items().isEmpty()
                            ? CompletableFuture.completedFuture(grains)
                            : grainsOf(
                                    table,
                                    any.items().get(0).get(ItemAttributes.PK).s(),
                                    null,
                                    grains,
                                    requests));
        });
    }

    private CompletableFuture<TreeSet<String>> grainsOf(
            String table, String pk, String after, TreeSet<String> grains, AtomicInteger requests) {
        QueryRequest.Builder query = QueryRequest.builder().tableName(table).limit(1);
        if (after == null) {
            query.keyConditionExpression(ItemAttributes.PK + " = :pk")
                    .expressionAttributeValues(Map.of(":pk", AttributeValue.fromS(pk)));
        } else {
            query.keyConditionExpression(ItemAttributes.PK + " = :pk AND " + ItemAttributes.SK + " > :after")
                    .expressionAttributeValues(
                            Map.of(":pk", AttributeValue.fromS(pk), ":after", AttributeValue.fromS(after + '$')));
        }
        QueryRequest request = query.build();
        return retry.call(() -> {
                    requests.incrementAndGet();
                    return client.query(request);
                })
                .thenCompose((QueryResponse response) -> {
                    if (response.items().isEmpty()) {
                        return CompletableFuture.completedFuture(grains);
                    }
                    String sk = response.items().get(0).get(ItemAttributes.SK).s();
                    String grain = sk.substring(0, Math.max(0, sk.indexOf('#')));
                    grains.add(grain);
                    return grainsOf(table, pk, grain, grains, requests);
                });
    }
}
