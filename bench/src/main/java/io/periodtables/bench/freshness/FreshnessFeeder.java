package io.periodtables.bench.freshness;

import io.periodtables.bench.FleetReadings;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.model.Reading;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;

/**
 * Puts the job's synthetic fleet ({@link FleetReadings}, event time = the reading's due time)
 * into a stream at a steady rate for one phase: every {@link #TICK} the readings due by then go
 * out in {@code PutRecords} calls of at most 500 (the API's limit), up to {@link #IN_FLIGHT}
 * calls at a time (one connection to kinesalite does not take 5,000 records/s on this machine;
 * a late tick catches up). The partition
 * key is the device's index, so each device stays on one shard as with the device id. Every
 * {@code sampleEvery}-th reading is handed to a {@link FreshnessProbe} with its item's table and
 * key (from the reading as the job parses it) and the time its PutRecords call was sent.
 */
final class FreshnessFeeder {
    static final Duration TICK = Duration.ofMillis(20);
    static final int IN_FLIGHT = 4;
    private static final int MAX_BATCH = 500;

    /** What one phase put: records, seconds, and the PutRecords round trips (ns). */
    record Fed(long records, double seconds, List<Long> putNanos) {}

    private final KinesisClient kinesis;
    private final String stream;
    private final PeriodTablesConfig config;
    private final FleetReadings fleet;
    private final int devices;
    private final double rate;
    private final long total;
    private final long sampleEvery;
    private final FreshnessProbe probe;
    private final List<Long> putNanos = Collections.synchronizedList(new ArrayList<>());
    private final CompletableFuture<Long> done = new CompletableFuture<>();
    private final Semaphore inFlight = new Semaphore(IN_FLIGHT);
    private final AtomicLong acked = new AtomicLong();
    private ExecutorService puts;
    private long startNanos;
    private long next;

    /** A phase of {@code duration} at {@code rate} readings/s of {@code config}'s fleet, from now on. */
    FreshnessFeeder(
            KinesisClient kinesis,
            String stream,
            PeriodTablesConfig config,
            double rate,
            Duration duration,
            double samplesPerSecond,
            FreshnessProbe probe) {
        this.kinesis = kinesis;
        this.stream = stream;
        this.config = config;
        Instant start = Instant.now();
        this.fleet = new FleetReadings(
                config.with(ConfigKeys.GENERATOR_RATE, Double.toString(rate))
                        .with(ConfigKeys.GENERATOR_START, start.toString()),
                start);
        this.devices = config.get(ConfigKeys.GENERATOR_DEVICES);
        this.rate = rate;
        this.total = (long) (rate * duration.toMillis() / 1000.0);
        this.sampleEvery = Math.max(1, Math.round(rate / samplesPerSecond));
        this.probe = probe;
    }

    /** Puts the phase's readings and returns when the last is in (or fails with the feeder's error). */
    Fed feed() throws Exception {
        ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "freshness-feeder");
            t.setDaemon(true);
            return t;
        });
        puts = Executors.newFixedThreadPool(IN_FLIGHT, r -> {
            Thread t = new Thread(r, "freshness-put");
            t.setDaemon(true);
            return t;
        });
        startNanos = System.nanoTime();
        try {
            ticks.scheduleAtFixedRate(this::tick, 0, TICK.toNanos(), TimeUnit.NANOSECONDS);
            long records = done.get((long) (total / rate) + 600, TimeUnit.SECONDS);
            synchronized (putNanos) {
                return new Fed(records, (System.nanoTime() - startNanos) / 1e9, List.copyOf(putNanos));
            }
        } finally {
            ticks.shutdownNow();
            puts.shutdownNow();
        }
    }

    private void tick() {
        try {
            // Reading n is due n / rate seconds after the start.
            long due = Math.min(total, (long) ((System.nanoTime() - startNanos) / 1e9 * rate) + 1);
            while (next < due && !done.isDone()) {
                int size = (int) Math.min(MAX_BATCH, due - next);
                long first = next;
                inFlight.acquire();
                puts.execute(() -> {
                    try {
                        put(first, size);
                        if (acked.addAndGet(size) == total) {
                            done.complete(total);
                        }
                    } catch (RuntimeException e) {
                        done.completeExceptionally(e);
                    } finally {
                        inFlight.release();
                    }
                });
                next += size;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void put(long first, int size) {
        List<PutRecordsRequestEntry> entries = new ArrayList<>(size);
        for (long n = first; n < first + size; n++) {
            entries.add(PutRecordsRequestEntry.builder()
                    .partitionKey(Long.toString(n % devices))
                    .data(SdkBytes.fromString(fleet.json(n), StandardCharsets.UTF_8))
                    .build());
        }
        long sent = System.nanoTime();
        List<PutRecordsRequestEntry> pending = entries;
        for (int attempt = 1; !pending.isEmpty(); attempt++) {
            List<PutRecordsRequestEntry> records = pending;
            long callStart = System.nanoTime();
            PutRecordsResponse response =
                    kinesis.putRecords(b -> b.streamName(stream).records(records));
            putNanos.add(System.nanoTime() - callStart);
            pending = new ArrayList<>();
            for (int i = 0; i < response.records().size(); i++) {
                if (response.records().get(i).errorCode() != null) {
                    pending.add(records.get(i));
                }
            }
            if (!pending.isEmpty() && attempt == 10) {
                throw new IllegalStateException(pending.size() + " records still failing after 10 PutRecords attempts");
            }
            if (!pending.isEmpty()) {
                // a shard takes 1,000 records and 1 MiB a second (Kinesis, and the layer in front of
                // kinesalite): what it refused fits again within a second
                pauseBeforeRetry(attempt);
            }
        }
        // Sampled after the put: a retried record keeps its first send time, so its retries count in its delay.
        long now = System.currentTimeMillis();
        WriteSharding sharding = config.sharding();
        for (long n = first + Math.floorMod(-first, sampleEvery); n < first + size; n += sampleEvery) {
            Reading reading;
            synchronized (fleet) { // the job's parser reuses its buffers
                reading = fleet.reading(n, now);
            }
            WriteSharding.ItemKey key =
                    sharding.keyOf(reading.deviceId(), reading.eventMillis(), reading.eventId(), reading.canonical());
            String table = config.naming().periodTableOf(Instant.ofEpochMilli(reading.eventMillis()));
            probe.add(new FreshnessProbe.Sample(table, key.pk(), key.sk(), sent));
        }
    }

    /** 100 ms times the attempt: the 10 attempts span 4.5 s, more than a shard's second. */
    private static void pauseBeforeRetry(int attempt) {
        try {
            Thread.sleep(100L * attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted putting records again", e);
        }
    }
}
