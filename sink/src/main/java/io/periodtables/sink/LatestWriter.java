package io.periodtables.sink;

import io.periodtables.conf.Backoff;
import io.periodtables.conf.ConfigKeys;
import io.periodtables.conf.DynamoDbClients;
import io.periodtables.conf.DynamoDbFailure;
import io.periodtables.conf.ItemAttributes;
import io.periodtables.conf.LatestTable;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.conf.TableNaming;
import io.periodtables.conf.UserMetrics;
import io.periodtables.conf.WriteSharding;
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
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The writer of {@link LatestSink}: the newest reading per device since the last put (by sort
 * key, whose text order is event-time order), sent once a second and at every checkpoint as
 * conditional puts, at most {@value #MAX_IN_FLIGHT} at a time; throttled and failed puts are
 * retried with backoff up to {@code sink.max-attempts}, then the job fails.
 */
final class LatestWriter implements SinkWriter<SinkRecord> {
    static final int MAX_IN_FLIGHT = 32;
    static final long INTERVAL_MILLIS = 1000;
    /** More devices waiting than this are sent at once, not at the next interval. */
    static final int MAX_PENDING = 10_000;

    private final TableNaming naming;
    private final WriteSharding sharding;
    private final DynamoDbAsyncClient client;
    private final LatestTable table;
    private final MailboxExecutor mailbox;
    private final ProcessingTimeService time;
    private final Backoff backoff = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(5));
    private final int maxAttempts;
    private final Counter puts;
    private final Counter notNewer;

    private final Map<String, LatestTable.Latest> pending = new HashMap<>();
    private final ArrayDeque<Attempt> queue = new ArrayDeque<>();
    private final CompletableFuture<Void> ready;
    private int inFlight;
    private int waitingRetries;
    private Throwable failure;

    private record Attempt(LatestTable.Latest latest, int failures) {}

    LatestWriter(PeriodTablesConfig config, WriterInitContext context) {
        this.naming = config.naming();
        this.sharding = config.sharding();
        this.client = DynamoDbClients.of(config).newAsyncClientForNonBlockingCallbacks(MAX_IN_FLIGHT);
        this.table = new LatestTable(client, naming);
        this.mailbox = context.getMailboxExecutor();
        this.time = context.getProcessingTimeService();
        this.maxAttempts = config.get(ConfigKeys.SINK_MAX_ATTEMPTS);
        MetricGroup metrics = UserMetrics.of(context.metricGroup());
        this.puts = metrics.counter(UserMetrics.LATEST_PUTS);
        this.notNewer = metrics.counter(UserMetrics.LATEST_NOT_NEWER);
        this.ready = table.ensure();
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
        String tableName;
        if (record.kind() == SinkRecord.Kind.PERIOD) {
            try {
                tableName = naming.periodTableOf(
                        Instant.ofEpochMilli(record.reading().eventMillis()));
            } catch (IllegalArgumentException noTableForThatTime) {
                return; // the period-table sink rejects it
            }
        } else if (record.kind() == SinkRecord.Kind.LATE && record.lateAtMillis() != SinkRecord.UNKNOWN) {
            tableName = naming.lateTable(Instant.ofEpochMilli(record.lateAtMillis()));
        } else {
            return;
        }
        Reading reading = record.reading();
        String sk = sharding.keyOf(reading.deviceId(), reading.eventMillis(), reading.eventId(), reading.canonical())
                .sk();
        LatestTable.Latest known = pending.get(reading.deviceId());
        if (known != null && known.sortKey().compareTo(sk) >= 0) {
            return;
        }
        pending.put(reading.deviceId(), new LatestTable.Latest(reading.deviceId(), sk, tableName, payload(reading)));
        if (pending.size() >= MAX_PENDING) {
            send();
        }
    }

    private static Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> payload(Reading reading) {
        try {
            return ItemAttributes.ofJsonObject(reading.payloadJson());
        } catch (IOException notAnObject) {
            return Map.of();
        }
    }

    /** Everything pending goes to the queue, and the queue to DynamoDB as far as the window allows. */
    private void send() {
        for (LatestTable.Latest latest : pending.values()) {
            queue.add(new Attempt(latest, 0));
        }
        pending.clear();
        pump();
    }

    private void pump() {
        if (!ready.isDone()) {
            ready.whenComplete((ok, error) -> mailbox.execute(
                    () -> {
                        if (error != null && failure == null) {
                            failure = error;
                        }
                        pump();
                    },
                    "latest table ready"));
            return;
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
        } else {
            DynamoDbFailure.Kind kind = DynamoDbFailure.classify(error);
            boolean retryable = kind == DynamoDbFailure.Kind.THROTTLED
                    || kind == DynamoDbFailure.Kind.TRANSIENT
                    || kind == DynamoDbFailure.Kind.TABLE_MISSING;
            int failures = attempt.failures() + 1;
            if (!retryable || failures >= maxAttempts) {
                if (failure == null) {
                    failure = new IOException(
                            "the latest reading of " + attempt.latest().device() + " could not be put into "
                                    + table.name() + " after " + failures + " attempts (sink.max-attempts = "
                                    + maxAttempts + ")",
                            DynamoDbFailure.unwrap(error));
                }
            } else {
                waitingRetries++;
                time.registerTimer(time.getCurrentProcessingTime() + backoff.delayMillis(failures), at -> {
                    waitingRetries--;
                    queue.add(new Attempt(attempt.latest(), failures));
                    pump();
                });
            }
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
        while (inFlight > 0 || !queue.isEmpty() || waitingRetries > 0 || !ready.isDone()) {
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
