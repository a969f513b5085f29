package io.periodtables.sink.latest;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.core.dynamodb.Backoff;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.dynamodb.DynamoDbFailure;
import io.periodtables.core.dynamodb.LatestTable;
import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.ReadingItems;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.TableNaming;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The writer of {@link LatestSink}: the newest reading per device since the last put (by sort
 * key, whose text order is event-time order), sent once a second and at every checkpoint as
 * conditional puts, at most {@value #MAX_IN_FLIGHT} at a time; throttled and failed puts are
 * retried with backoff, a missing table created, up to twice {@code sink.max-attempts}, then the
 * job fails. A reading the
 * period-table sink rejects is never the latest; one whose latest item DynamoDB refuses (too
 * large with its key) is counted ({@code latestRefused}) and skipped.
 */
public final class LatestWriter implements SinkWriter<SinkRecord> {
    private static final Logger LOG = LoggerFactory.getLogger(LatestWriter.class);
    public static final int MAX_IN_FLIGHT = 32;
    static final long INTERVAL_MILLIS = 1000;
    /** More devices waiting than this are sent at once, not at the next interval. */
    public static final int MAX_PENDING = 10_000;

    private final TableNaming naming;
    private final WriteSharding sharding;
    private final DynamoDbAsyncClient client;
    private final LatestTable table;
    private final MailboxExecutor mailbox;
    private final ProcessingTimeService time;
    /** Slower than the period-table sink's (50 ms to 5 s): when DynamoDB fails as a whole, that sink says so first. */
    private final Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10));

    private final int maxPending;
    private final int maxAttempts;
    private final Counter puts;
    private final Counter notNewer;
    private final Counter refused;
    private final ReadingItems items;

    private final Map<String, Newest> pending = new HashMap<>();
    private final ArrayDeque<Attempt> queue = new ArrayDeque<>();
    /** The table's creation, while one runs (after a put found it missing). */
    private CompletableFuture<Void> creating;

    private int inFlight;
    private int waitingRetries;
    private Throwable failure;

    private record Attempt(LatestTable.Latest latest, int failures) {}

    LatestWriter(PeriodTablesConfig config, DynamoDbClients clients, int maxPending, WriterInitContext context) {
        this.naming = config.naming();
        this.sharding = config.sharding();
        this.client = clients.newAsyncClientForNonBlockingCallbacks(MAX_IN_FLIGHT);
        this.maxPending = maxPending;
        this.table = new LatestTable(client, naming);
        this.mailbox = context.getMailboxExecutor();
        this.time = context.getProcessingTimeService();
        this.maxAttempts = config.get(ConfigKeys.SINK_MAX_ATTEMPTS);
        MetricGroup metrics = UserMetrics.of(context.metricGroup());
        this.puts = metrics.counter(UserMetrics.LATEST_PUTS);
        this.notNewer = metrics.counter(UserMetrics.LATEST_NOT_NEWER);
        this.refused = metrics.counter(UserMetrics.LATEST_REFUSED);
        this.items = new ReadingItems(config);
        schedule();
    }

    private void schedule() {
        time.registerTimer(time.getCurrentProcessingTime() + INTERVAL_MILLIS, at -> {
            send();
            schedule();
        });
    }

    @Override
    public void write(SinkRecord record, Context context) throws IOException {
        checkFailure();
        boolean late = record.kind() == SinkRecord.Kind.LATE && record.lateAtMillis() != SinkRecord.UNKNOWN;
        if (record.kind() != SinkRecord.Kind.PERIOD && !late) {
            return;
        }
        Reading reading = record.reading();
        Newest known = pending.get(reading.deviceId());
        // Sort keys order by event time first: the hash decides only between readings of one millisecond.
        // The same sort key again (an eventId resent) replaces the pending one: the last sent wins, as in its table.
        if (known != null
                && (reading.eventMillis() < known.reading().eventMillis()
                        || (reading.eventMillis() == known.reading().eventMillis()
                                && sortKey(reading).compareTo(sortKey(known.reading())) < 0))) {
            return;
        }
        pending.put(reading.deviceId(), new Newest(reading, late ? record.lateAtMillis() : SinkRecord.UNKNOWN));
        if (pending.size() >= maxPending) {
            send();
        }
    }

    private String sortKey(Reading reading) {
        return sharding.keyOf(reading.deviceId(), reading.eventMillis(), reading.eventId(), reading.canonical())
                .sk();
    }

    /**
     * A device's newest reading since the last send, and for a late one the watermark that named
     * its late table; its table and item are worked out only when it is sent.
     */
    private record Newest(Reading reading, long lateAtMillis) {}

    /** The latest table's item of {@code newest}, or null when it has none (never stored, or too large). */
    private LatestTable.Latest latest(Newest newest) {
        Map<String, AttributeValue> item;
        String table;
        try {
            item = new HashMap<>(items.item(newest.reading()));
            table = newest.lateAtMillis() == SinkRecord.UNKNOWN
                    ? naming.periodTableOf(Instant.ofEpochMilli(newest.reading().eventMillis()))
                    : naming.lateTable(Instant.ofEpochMilli(newest.lateAtMillis()));
        } catch (IllegalArgumentException rejectedBySink) {
            return null; // the period-table sink stores it as a rejection, not a reading
        }
        String sortKey = item.remove(ItemAttributes.SK).s();
        item.remove(ItemAttributes.PK);
        item.remove(ItemAttributes.TTL);
        LatestTable.Latest latest = new LatestTable.Latest(newest.reading().deviceId(), sortKey, table, item);
        if (DynamoDbItemSize.of(latest.item()) > DynamoDbItemSize.MAX_ITEM_BYTES) {
            refused.inc(); // within 400 KB as a reading, above it with the latest table's key and table
            return null;
        }
        return latest;
    }

    /** Everything pending goes to the queue, and the queue to DynamoDB as far as the window allows. */
    private void send() {
        for (Newest newest : pending.values()) {
            LatestTable.Latest latest = latest(newest);
            if (latest != null) {
                queue.add(new Attempt(latest, 0));
            }
        }
        pending.clear();
        pump();
    }

    private void pump() {
        if (creating != null) {
            return; // resumed when the table is there
        }
        while (inFlight < MAX_IN_FLIGHT && !queue.isEmpty()) {
            Attempt attempt = queue.poll();
            inFlight++;
            table.putIfNewer(attempt.latest())
                    .whenComplete((stored, error) ->
                            mailbox.execute(() -> completed(attempt, stored, error), "latest put completed"));
        }
    }

    private void completed(Attempt attempt, Boolean stored, Throwable error) {
        inFlight--;
        if (error == null) {
            (stored ? puts : notNewer).inc();
            pump();
            return;
        }
        DynamoDbFailure.Kind kind = DynamoDbFailure.classify(error);
        int failures = attempt.failures() + 1;
        if (kind == DynamoDbFailure.Kind.VALIDATION) {
            // DynamoDB refuses this one item; the reading itself is stored, the device keeps its previous newest
            refused.inc();
            LOG.warn(
                    "DynamoDB refused the latest reading of {} for {}: {}",
                    attempt.latest().device(),
                    table.name(),
                    DynamoDbFailure.unwrap(error).getMessage());
        } else if (failures >= 2 * maxAttempts) {
            // Twice the period-table sink's attempts, with a slower backoff.
            if (failure == null) {
                failure = new IOException(
                        "the latest reading of " + attempt.latest().device() + " could not be put into "
                                + table.name() + " in " + failures + " attempts (twice sink.max-attempts = "
                                + maxAttempts + ")",
                        DynamoDbFailure.unwrap(error));
            }
        } else {
            if (kind == DynamoDbFailure.Kind.TABLE_MISSING && creating == null) {
                creating = table.ensure();
                creating.whenComplete((ok, createError) -> mailbox.execute(
                        () -> {
                            creating = null;
                            pump();
                        },
                        "latest table created"));
            }
            waitingRetries++;
            time.registerTimer(time.getCurrentProcessingTime() + backoff.delayMillis(failures), at -> {
                waitingRetries--;
                queue.add(new Attempt(attempt.latest(), failures));
                pump();
            });
        }
        pump();
    }

    private void checkFailure() throws IOException {
        if (failure != null) {
            throw failure instanceof IOException io ? io : new IOException(failure);
        }
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        send();
        while (inFlight > 0 || !queue.isEmpty() || waitingRetries > 0 || creating != null) {
            checkFailure();
            mailbox.yield();
        }
        checkFailure();
    }

    @Override
    public void close() {
        client.close();
    }
}
