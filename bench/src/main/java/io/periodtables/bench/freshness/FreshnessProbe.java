package io.periodtables.bench.freshness;

import io.periodtables.core.item.ItemAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * Polls DynamoDB for sampled readings until each one's item is readable: every {@code interval}
 * (fixed delay, so under load the spacing grows; it is measured), one strongly consistent
 * {@code BatchGetItem} per 100 pending keys, keys only. A sample's delay is the start of the poll
 * that first found its item minus the time its {@code PutRecords} call was sent, so it is late by
 * at most the poll spacing. A sample not found while no other sample is found for
 * {@code patience} counts as never found.
 */
final class FreshnessProbe implements AutoCloseable {
    /** DynamoDB's limit on keys per {@code BatchGetItem}. */
    private static final int MAX_KEYS = 100;

    /** A sampled reading: its item's table and key, and when its PutRecords call was sent. */
    record Sample(String table, String pk, String sk, long sentNanos) {}

    /** What the samples of one phase found: delays (ns), samples never found, and the poll spacing (ns). */
    record Result(List<Long> delays, int neverFound, List<Long> pollSpacings) {}

    private final DynamoDbClient dynamoDb;
    private final ConcurrentLinkedQueue<Sample> added = new ConcurrentLinkedQueue<>();
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "freshness-probe");
        t.setDaemon(true);
        return t;
    });
    // guarded by this
    private final Map<String, Sample> pending = new LinkedHashMap<>();
    private final List<Long> delays = new ArrayList<>();
    private final List<Long> spacings = new ArrayList<>();
    private long lastPollNanos;
    private RuntimeException failure;

    FreshnessProbe(DynamoDbClient dynamoDb, Duration interval) {
        this.dynamoDb = dynamoDb;
        poller.scheduleWithFixedDelay(this::poll, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    void add(Sample sample) {
        added.add(sample);
    }

    /**
     * Waits until every sample added so far was found, or none was found for {@code patience},
     * returns what this phase's samples found and starts the next phase with nothing pending.
     */
    synchronized Result drain(Duration patience) throws InterruptedException {
        int found = delays.size();
        long deadline = System.nanoTime() + patience.toNanos();
        while ((!pending.isEmpty() || !added.isEmpty()) && failure == null && System.nanoTime() < deadline) {
            wait(100);
            if (delays.size() > found) {
                found = delays.size();
                deadline = System.nanoTime() + patience.toNanos();
            }
        }
        if (failure != null) {
            throw failure;
        }
        Result result = new Result(List.copyOf(delays), pending.size() + added.size(), List.copyOf(spacings));
        pending.clear();
        added.clear();
        delays.clear();
        spacings.clear();
        return result;
    }

    private synchronized void poll() {
        long start = System.nanoTime();
        if (lastPollNanos != 0) {
            spacings.add(start - lastPollNanos);
        }
        lastPollNanos = start;
        for (Sample s = added.poll(); s != null; s = added.poll()) {
            pending.put(id(s.table(), s.pk(), s.sk()), s);
        }
        try {
            List<Sample> batch = new ArrayList<>(MAX_KEYS);
            for (Sample sample : List.copyOf(pending.values())) {
                batch.add(sample);
                if (batch.size() == MAX_KEYS) {
                    lookUp(batch, start);
                    batch.clear();
                }
            }
            if (!batch.isEmpty()) {
                lookUp(batch, start);
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        notifyAll();
    }

    /** One BatchGetItem for {@code batch}; keys DynamoDB leaves unprocessed stay pending. */
    private void lookUp(List<Sample> batch, long pollStart) {
        Map<String, List<Map<String, AttributeValue>>> keys = new HashMap<>();
        for (Sample s : batch) {
            keys.computeIfAbsent(s.table(), t -> new ArrayList<>())
                    .add(Map.of(
                            ItemAttributes.PK,
                            AttributeValue.fromS(s.pk()),
                            ItemAttributes.SK,
                            AttributeValue.fromS(s.sk())));
        }
        Map<String, KeysAndAttributes> request = new HashMap<>();
        keys.forEach((table, k) -> request.put(
                table,
                KeysAndAttributes.builder()
                        .keys(k)
                        .consistentRead(true)
                        .projectionExpression(ItemAttributes.PK + ", " + ItemAttributes.SK)
                        .build()));
        BatchGetItemResponse response;
        try {
            response = dynamoDb.batchGetItem(b -> b.requestItems(request));
        } catch (ResourceNotFoundException e) {
            return; // the period's table is not there yet: the sink's missing-table fallback creates it
        }
        response.responses()
                .forEach((table, items) -> items.forEach(item -> {
                    Sample found = pending.remove(id(
                            table,
                            item.get(ItemAttributes.PK).s(),
                            item.get(ItemAttributes.SK).s()));
                    if (found != null) {
                        delays.add(pollStart - found.sentNanos());
                    }
                }));
    }

    private static String id(String table, String pk, String sk) {
        return table + '\n' + pk + '\n' + sk;
    }

    @Override
    public void close() {
        poller.shutdownNow();
    }
}
