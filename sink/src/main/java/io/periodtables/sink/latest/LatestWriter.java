package io.periodtables.sink.latest;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.core.dynamodb.Backoff;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.dynamodb.DynamoDbFailure;
import io.periodtables.core.dynamodb.DynamoDbFailure.Kind;
import io.periodtables.core.dynamodb.LatestTable;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import io.periodtables.sink.latest.LatestItems.Newest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The writer of {@link LatestSink}: per device the newest reading it was given (by event time,
 * then sort key), put at most once per {@code latest.interval} and at every checkpoint as a
 * conditional put. A device's first reading goes at the next one-second tick; a reading that comes
 * while its last put is less than an interval old waits until the interval has passed (coalesced:
 * a newer one replaces it), so a reading is sent at most an interval and a tick after the writer
 * was given it, and a device reporting more often than the interval costs a put an interval. The
 * puts due in a tick go as many at a time as DynamoDB's round trip needs for them to be answered
 * within the second ({@link PutWindow}: 32 to {@value #MAX_IN_FLIGHT}). A device's newer reading
 * waits while its put is in flight, so a put never sends a version the writer knows to be stale;
 * a throttled or failed put is retried with backoff unless a newer reading is waiting by then (a
 * table warming up, which takes writes, throttles this way), a missing table created, up to twice
 * {@code sink.max-attempts} per device, then the job fails.
 *
 * <p>Memory is bounded: at most {@value #MAX_PENDING} devices with a reading (default; {@code
 * latestPendingDevices}), each with at most one waiting reading, at most {@value #MAX_IN_FLIGHT}
 * readings in flight, at most 64 MB of readings held ({@link #MAX_PENDING_BYTES}), and as many
 * device ids with the time they are due again. A reading past either bound sends every waiting
 * device at once, due or not, and blocks
 * {@code write()} (the mailbox keeps running the puts' answers) until a device's put is answered:
 * when DynamoDB falls behind, the job slows down instead of queueing versions. A reading the
 * period-table sink rejects is never the latest; one whose latest item DynamoDB refuses (too large
 * with its key) is counted ({@code latestRefused}) and skipped.
 */
public final class LatestWriter implements SinkWriter<SinkRecord> {
    private static final Logger LOG = LoggerFactory.getLogger(LatestWriter.class);
    /** The puts a writer keeps in flight at most (see {@link PutWindow}). */
    public static final int MAX_IN_FLIGHT = PutWindow.MAX;

    /** The writer's tick: a device whose next put is due goes at the first tick after. */
    static final long TICK_MILLIS = 1000;
    /**
     * The devices a writer holds a reading of at most; a reading of one more waits in {@code
     * write()}. It also bounds the devices it remembers as put within the last interval.
     */
    public static final int MAX_PENDING = 100_000;
    /**
     * The readings' bytes a writer holds at most (waiting and in flight, {@link #bytesOf}): some 90,000
     * readings of about 300 bytes, or 80 of 400 KB. A reading past it waits in {@code write()} as
     * one of a device past {@link #MAX_PENDING} does.
     */
    static final long MAX_PENDING_BYTES = 64L << 20;

    private final DynamoDbAsyncClient client;
    private final LatestTable table;
    private final MailboxExecutor mailbox;
    private final ProcessingTimeService time;
    /** Slower than the period-table sink's (50 ms to 5 s): when DynamoDB fails as a whole, that sink says so first. */
    private final Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10));

    private final int maxPending;
    private final int maxAttempts;
    private final LatestTableSetUp setUp;

    private final Counter puts;
    private final Counter notNewer;
    private final Counter refused;
    private final LatestItems items;

    /** The devices with a reading waiting or in flight. */
    private final Map<String, Device> devices = new HashMap<>();
    /**
     * Devices put within the last interval with nothing waiting: when each may be put again, in the
     * order they were answered (so the head is due first). One forgotten early is put sooner.
     */
    private final LinkedHashMap<String, Long> recent = new LinkedHashMap<>();
    /** Devices whose waiting reading may be put now, in the order they became ready. */
    private final ArrayDeque<String> ready = new ArrayDeque<>();

    private final PutWindow window = new PutWindow(TICK_MILLIS);
    /** {@code latest.interval}: a device's puts are at least this far apart, but at checkpoints. */
    private final long intervalMillis;

    private int inFlight;
    /** The bytes of the readings held, waiting and in flight ({@link #bytesOf}). */
    private long heldBytes;

    private boolean flushing;
    private Throwable failure;

    /** One held device: its waiting reading, the one in flight, and its put's failures in a row. */
    private static final class Device {
        Newest waiting;
        Newest inFlight;
        int failures;
        boolean queued;
        boolean backingOff;
        /** When the device may be put again: an interval after its last put was sent. */
        long dueAt;

        Newest newest() {
            return waiting != null ? waiting : inFlight;
        }

        boolean sendable() {
            return waiting != null && inFlight == null && !backingOff && !queued;
        }
    }

    LatestWriter(PeriodTablesConfig config, DynamoDbClients clients, int maxPending, WriterInitContext context) {
        this(config, clients.newAsyncClientForNonBlockingCallbacks(MAX_IN_FLIGHT), maxPending, context);
    }

    /** A writer putting through {@code client}, which it closes. */
    @VisibleForTesting
    LatestWriter(PeriodTablesConfig config, DynamoDbAsyncClient client, int maxPending, WriterInitContext context) {
        this.client = client;
        this.maxPending = maxPending;
        int warmWrites = config.find(ConfigKeys.LATEST_WARM_WRITES).orElse(0);
        this.table = new LatestTable(client, config.naming(), warmWrites);
        this.mailbox = context.getMailboxExecutor();
        this.setUp = new LatestTableSetUp(client, table, config, mailbox);
        this.time = context.getProcessingTimeService();
        this.maxAttempts = config.get(ConfigKeys.SINK_MAX_ATTEMPTS);
        this.intervalMillis = config.get(ConfigKeys.LATEST_INTERVAL).toMillis();
        MetricGroup metrics = UserMetrics.of(context.metricGroup());
        this.puts = metrics.counter(UserMetrics.LATEST_PUTS);
        this.notNewer = metrics.counter(UserMetrics.LATEST_NOT_NEWER);
        this.refused = metrics.counter(UserMetrics.LATEST_REFUSED);
        metrics.gauge(UserMetrics.LATEST_PENDING_DEVICES, (Gauge<Integer>) devices::size);
        this.items = new LatestItems(config, refused);
        if (warmWrites > 0) {
            // latest.warm-writes: each subtask's first puts wait until the table exists with it (created or raised)
            ensureTable();
        }
        schedule();
    }

    private void schedule() {
        time.registerTimer(time.getCurrentProcessingTime() + TICK_MILLIS, at -> {
            forgetDue(at);
            send(device -> device.dueAt <= at);
            schedule();
        });
    }

    /** Forgets the devices put an interval ago or more with nothing waiting: their next reading goes at once. */
    private void forgetDue(long now) {
        Iterator<Long> dues = recent.values().iterator();
        while (dues.hasNext() && dues.next() <= now) {
            dues.remove();
        }
    }

    /** Remembers when a device with nothing waiting may be put again; the one due first is forgotten when full. */
    private void remember(String id, long dueAt) {
        if (recent.size() >= maxPending) {
            Iterator<Long> first = recent.values().iterator();
            first.next();
            first.remove();
        }
        recent.put(id, dueAt);
    }

    @Override
    public void write(SinkRecord record, Context context) throws IOException, InterruptedException {
        checkFailure();
        boolean late = record.kind() == SinkRecord.Kind.LATE && record.lateAtMillis() != SinkRecord.UNKNOWN;
        if (record.kind() != SinkRecord.Kind.PERIOD && !late) {
            return;
        }
        Reading reading = record.reading();
        String id = reading.deviceId();
        long bytes = bytesOf(reading);
        if (full(id, bytes)) {
            send(any -> true); // backpressure: hold the task until a device's put is answered
            while (full(id, bytes)) {
                mailbox.yield();
                checkFailure();
            }
        }
        Device device = devices.get(id);
        if (device == null) {
            device = new Device();
            Long dueAt = recent.remove(id);
            device.dueAt = dueAt == null ? Long.MIN_VALUE : dueAt;
            devices.put(id, device);
        } else if (items.older(reading, device.newest().reading())) {
            return;
        }
        if (device.waiting != null) {
            heldBytes -= bytesOf(device.waiting.reading());
        }
        device.waiting = new Newest(reading, late ? record.lateAtMillis() : SinkRecord.UNKNOWN);
        heldBytes += bytes;
    }

    /** True when a reading of {@code bytes} for device {@code id} would pass the bound of devices or of bytes held. */
    private boolean full(String id, long bytes) {
        return (devices.size() >= maxPending && !devices.containsKey(id))
                || (heldBytes > 0 && heldBytes + bytes > MAX_PENDING_BYTES);
    }

    /** A reading's heap, about: its strings' characters at two bytes each and the objects around them. */
    static long bytesOf(Reading reading) {
        long chars = reading.deviceId().length()
                + reading.payloadJson().length()
                + (reading.eventId() == null ? 0 : reading.eventId().length());
        return 2 * chars + 96;
    }

    /**
     * Every device of {@code due} whose waiting reading may go is made ready, and the ready ones go
     * as far as the window allows.
     */
    private void send(Predicate<Device> due) {
        devices.forEach((id, device) -> {
            if (due.test(device)) {
                enqueue(id, device);
            }
        });
        window.resize(ready.size() + inFlight);
        pump();
    }

    private void enqueue(String id, Device device) {
        if (device.sendable()) {
            device.queued = true;
            ready.add(id);
        }
    }

    private void pump() {
        if (setUp.running()) {
            return; // resumed when the table is there
        }
        while (inFlight < window.size() && !ready.isEmpty()) {
            String id = ready.poll();
            Device device = devices.get(id);
            device.queued = false;
            Newest newest = device.waiting;
            device.waiting = null;
            LatestTable.Latest latest = items.latest(newest);
            if (latest == null) {
                heldBytes -= bytesOf(newest.reading());
                devices.remove(id);
                continue;
            }
            device.inFlight = newest;
            device.dueAt = time.getCurrentProcessingTime() + intervalMillis;
            inFlight++;
            long sentAt = System.nanoTime();
            table.putIfNewer(latest).whenComplete((stored, error) -> {
                long roundTrip = System.nanoTime() - sentAt;
                mailbox.execute(() -> completed(id, device, roundTrip, stored, error), "latest put completed");
            });
        }
    }

    private void completed(String id, Device device, long roundTrip, Boolean stored, Throwable error) {
        inFlight--;
        window.answered(roundTrip);
        Newest sent = device.inFlight;
        device.inFlight = null;
        heldBytes -= bytesOf(sent.reading());
        if (error == null) {
            (stored ? puts : notNewer).inc();
            device.failures = 0;
        } else {
            failed(id, device, sent, error);
        }
        if (device.waiting == null && !device.backingOff) {
            devices.remove(id);
            remember(id, device.dueAt);
        } else if (flushing) {
            enqueue(id, device); // a checkpoint waits for it: no need to wait for the next second
        }
        pump();
    }

    private void failed(String id, Device device, Newest sent, Throwable error) {
        Kind kind = DynamoDbFailure.classify(error);
        if (kind == Kind.VALIDATION) {
            // DynamoDB refuses this one item; the reading itself is stored, the device keeps its previous newest
            refused.inc();
            LOG.warn(
                    "DynamoDB refused the latest reading of {} for {}: {}",
                    id,
                    table.name(),
                    DynamoDbFailure.unwrap(error).getMessage());
            return;
        }
        int failures = ++device.failures;
        if (failures >= 2 * maxAttempts) {
            // Twice the period-table sink's attempts, with a slower backoff.
            if (failure == null) {
                failure = new IOException(
                        "the latest reading of " + id + " could not be put into " + table.name() + " in " + failures
                                + " attempts (twice sink.max-attempts = " + maxAttempts + ")",
                        DynamoDbFailure.unwrap(error));
            }
            return;
        }
        if (kind == Kind.TABLE_MISSING && !setUp.running()) {
            ensureTable();
        }
        if (device.waiting == null) {
            device.waiting = sent; // a newer reading, when one came meanwhile, replaces the failed one
            heldBytes += bytesOf(sent.reading());
        }
        device.backingOff = true;
        time.registerTimer(time.getCurrentProcessingTime() + backoff.delayMillis(failures), at -> {
            device.backingOff = false;
            enqueue(id, device);
            pump();
        });
    }

    private void checkFailure() throws IOException {
        if (failure != null) {
            throw failure instanceof IOException io ? io : new IOException(failure);
        }
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        flushing = true;
        try {
            send(any -> true);
            while (!devices.isEmpty()) {
                checkFailure();
                mailbox.yield();
            }
        } finally {
            flushing = false;
        }
        checkFailure();
    }

    @Override
    public void close() {
        client.close();
    }

    private void ensureTable() {
        setUp.start(fatal -> {
            if (fatal != null && failure == null) {
                failure = fatal;
            }
            pump();
        });
    }
}
