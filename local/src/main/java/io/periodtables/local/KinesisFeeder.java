package io.periodtables.local;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.job.input.FleetGenerator;
import io.periodtables.job.kinesis.KinesisInput;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;

/**
 * The local run's producer for {@code --source kinesis}: puts the synthetic fleet's readings
 * ({@link FleetGenerator}, the same JSON the generator source yields) into a stream with
 * {@code PutRecords}, {@code generator.rate} records per wall-clock second, every {@link
 * #PUT_INTERVAL} what became due since the last put, in batches of at most 500 (the API's limit),
 * the device id as partition key so each device's readings stay in order on one shard. Records a
 * response reports as failed (a shard takes 1,000 records and 1 MiB a second) are put again after a
 * pause. It stops after {@code generator.count} records, at {@link #finish()} once every reading due
 * by then is in, on {@link #stop()} at once, or at the first request that fails.
 */
final class KinesisFeeder {
    /** Records per {@code PutRecords} request at most (the Kinesis limit). */
    private static final int MAX_BATCH = 500;
    /**
     * How often the feeder puts what became due: the demo's 2,000 readings a second go in 10 calls of
     * 200. Putting each reading as soon as it was due made calls of the few readings due while the
     * last call ran, hundreds a second, whose per-call work (kinesalite locks and rewrites the stream's
     * metadata for every call, the layer parses and re-encodes it, the client signs it) took CPU that
     * the job, dynalite and kinesalite share on a laptop. A reading waits at most this long for its
     * put, far within the job's {@code watermark.out-of-orderness}.
     */
    static final Duration PUT_INTERVAL = Duration.ofMillis(100);
    /** How long records refused by their shards are put again before the feeder gives up. */
    private static final int GIVE_UP_SECONDS = 60;

    private final KinesisClient client;
    private final String stream;
    private final FleetGenerator fleet;
    private final double rate;
    private final long count;
    private final int devices;
    private final AtomicLong put = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Thread thread;
    /** The wall clock at the fleet's start: reading n is due n / rate seconds after it. */
    private final long startMillis = System.currentTimeMillis();

    private final long startNanos = System.nanoTime();
    /** The fleet's end ({@link #finish}): readings due before it are put, none after; until then none. */
    private volatile long endNanos = Long.MAX_VALUE;
    /** Set by {@link #finish} after {@link #endNanos}: true once the fleet has an end. */
    private volatile boolean ended;

    private volatile Exception failure;

    private KinesisFeeder(PeriodTablesConfig config, String stream, Instant start) {
        this.client = KinesisInput.kinesisClient(config);
        this.stream = stream;
        this.fleet = FleetGenerator.of(config, start);
        this.rate = config.get(ConfigKeys.GENERATOR_RATE);
        this.count = config.find(ConfigKeys.GENERATOR_COUNT).orElse(Long.MAX_VALUE);
        this.devices = config.get(ConfigKeys.GENERATOR_DEVICES);
        this.thread = new Thread(this::run, "kinesis-feeder");
        thread.setDaemon(true);
    }

    /** Starts putting into the stream {@code kinesis.stream-arn} of {@code config} at its endpoint. */
    static KinesisFeeder start(PeriodTablesConfig config) {
        String arn = config.get(ConfigKeys.KINESIS_STREAM_ARN);
        KinesisFeeder feeder = new KinesisFeeder(config, arn.substring(arn.lastIndexOf('/') + 1), Instant.now());
        feeder.thread.start();
        return feeder;
    }

    /** Records the stream has acknowledged so far. */
    long put() {
        return put.get();
    }

    /** Why the feeder stopped early, or null. */
    Exception failure() {
        return failure;
    }

    /** The wall-clock time (epoch millis) the fleet started at: its first reading is due then. */
    long startMillis() {
        return startMillis;
    }

    /**
     * Ends the fleet now: puts every reading due before now that is not in yet (a feeder that a pause of
     * its thread or a refusing shard left behind catches up) and none after, then stops. So a fleet that
     * ran s seconds put {@code rate * s} readings, however loaded the machine. Returns the wall-clock
     * time (epoch millis) the fleet ended at, on the clock of {@link #startMillis()}.
     */
    long finish() {
        long end = System.nanoTime();
        endNanos = end;
        ended = true;
        try {
            // bounded: a put of refused records gives up after GIVE_UP_SECONDS, a stuck one ends with stop()
            thread.join(TimeUnit.SECONDS.toMillis(2 * GIVE_UP_SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stop();
        return startMillis + TimeUnit.NANOSECONDS.toMillis(end - startNanos);
    }

    /** Stops putting at once and returns the number of records the stream holds from this feeder. */
    synchronized long stop() {
        if (stopped.getCount() == 0) {
            return put.get();
        }
        stopped.countDown();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        client.close();
        return put.get();
    }

    private void run() {
        long next = 0;
        long interval = PUT_INTERVAL.toNanos();
        try {
            for (long round = 1; next < count && stopped.getCount() > 0; round++) {
                // Every interval, put what became due: reading n is due n / rate seconds after the start.
                boolean ending = ended; // read before endNanos, which finish() sets first
                long roundNanos = startNanos + round * interval;
                long waitNanos = roundNanos - System.nanoTime();
                if (!ending
                        && waitNanos > 0
                        && stopped.await(Math.max(1, (waitNanos + 999_999) / 1_000_000), TimeUnit.MILLISECONDS)) {
                    return;
                }
                ending = ended;
                long now = Math.min(System.nanoTime(), endNanos);
                double elapsed = (now - startNanos) / 1e9;
                // due: the readings n with n / rate < elapsed (the first at the start itself)
                long due = Math.min(count, (long) Math.ceil(elapsed * rate));
                while (next < due && stopped.getCount() > 0) {
                    int size = (int) Math.min(MAX_BATCH, due - next);
                    put.addAndGet(putAll(batch(next, size)));
                    next += size;
                }
                if (ending) {
                    return; // every reading due before the end is in
                }
                if (System.nanoTime() > roundNanos + interval) {
                    // behind (a pause of this thread, refused records put again): the next round puts it all
                    round = (System.nanoTime() - startNanos) / interval;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure = e;
        }
    }

    private List<PutRecordsRequestEntry> batch(long first, int size) {
        List<PutRecordsRequestEntry> entries = new ArrayList<>(size);
        for (long n = first; n < first + size; n++) {
            entries.add(PutRecordsRequestEntry.builder()
                    .partitionKey(FleetGenerator.deviceId(n % devices))
                    .data(SdkBytes.fromString(fleet.map(n), StandardCharsets.UTF_8))
                    .build());
        }
        return entries;
    }

    /**
     * Puts the entries, again those a response reports as failed, until all are in. A shard takes
     * 1,000 records and 1 MiB a second (Kinesis, and the fidelity layer in front of kinesalite): the
     * records it refuses come back with ErrorCode ProvisionedThroughputExceededException and are put
     * again after a pause that doubles from 100 ms to 1 s, so that a fleet faster than its stream's
     * shards puts at what they take. It fails when records are still refused after {@value
     * #GIVE_UP_SECONDS} s; on {@link #stop()} it gives up on the refused ones. Returns how many are in.
     */
    private int putAll(List<PutRecordsRequestEntry> entries) throws InterruptedException {
        List<PutRecordsRequestEntry> pending = entries;
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(GIVE_UP_SECONDS);
        for (long pauseMillis = 100; !pending.isEmpty(); pauseMillis = Math.min(1000, pauseMillis * 2)) {
            List<PutRecordsRequestEntry> records = pending;
            PutRecordsResponse response =
                    client.putRecords(b -> b.streamName(stream).records(records));
            if (response.failedRecordCount() == null || response.failedRecordCount() == 0) {
                return entries.size();
            }
            List<PutRecordsRequestEntry> failed = new ArrayList<>();
            List<PutRecordsResultEntry> results = response.records();
            for (int i = 0; i < results.size(); i++) {
                if (results.get(i).errorCode() != null) {
                    failed.add(records.get(i));
                }
            }
            refused.addAndGet(failed.size());
            if (System.nanoTime() > giveUp) {
                throw new IllegalStateException(
                        failed.size() + " records still refused after " + GIVE_UP_SECONDS + " s: "
                                + results.stream()
                                        .filter(r -> r.errorCode() != null)
                                        .findFirst()
                                        .orElseThrow()
                                        .errorMessage());
            }
            pending = failed;
            if (stopped.await(pauseMillis, TimeUnit.MILLISECONDS)) {
                break;
            }
        }
        return entries.size() - pending.size();
    }

    /** Records the stream's shards refused so far (each put again). */
    long refused() {
        return refused.get();
    }
}
