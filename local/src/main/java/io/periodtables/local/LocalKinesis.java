package io.periodtables.local;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.emulators.Kinesalite;
import io.periodtables.job.input.FleetGenerator;
import io.periodtables.job.kinesis.KinesisInput;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The local run's Kinesis for {@code --source kinesis} without a {@code kinesis.stream-arn}:
 * kinesalite (the pinned emulator the build installs, on 127.0.0.1, a child process that ends
 * with this one), one stream, and the synthetic fleet put into it by a {@link KinesisFeeder}. The
 * job reads the stream with its production source ({@link KinesisInput}) from
 * {@code TRIM_HORIZON}, so nothing put before its readers start is missed.
 */
final class LocalKinesis implements AutoCloseable {
    static final String STREAM = "period-tables-local";
    static final String STREAM_ARN = Kinesalite.streamArn(STREAM);
    /** Shards a stream may have at most here (kinesalite answers slowly beyond). */
    static final int MAX_SHARDS = 50;
    /**
     * The share of a shard's put limit (1,000 records and 1 MiB a second) the sized stream's busiest
     * shard is planned to use: the feeder puts what is due in bursts, and after a pause of its thread
     * (a checkpoint, a collection) it puts the seconds it missed at once.
     */
    static final double PLANNED_USE = 0.6;
    /** How long the end of a run waits for the job to read what was put (a second Ctrl-C ends it at once). */
    private static final long CATCH_UP_NANOS = TimeUnit.MINUTES.toNanos(2);

    /** A shard's put limit (Kinesis, and the fidelity layer in front of kinesalite). */
    private static final int RECORDS_PER_SHARD = 1000;

    private static final int BYTES_PER_SHARD = 1024 * 1024;

    private final Kinesalite kinesalite;
    private final int shards;
    private volatile KinesisFeeder feeder;
    private long put;
    /** What the job had read when the fleet ended: the rest it read after, from the stream. */
    private long readAtEnd;
    /** When the fleet started, for the summary. */
    private String fedFrom;

    private LocalKinesis(Kinesalite kinesalite, int shards) {
        this.kinesalite = kinesalite;
        this.shards = shards;
    }

    /**
     * The settings that point {@code settings} at the local stream: its ARN and {@code TRIM_HORIZON},
     * under the given ones, so an explicit {@code kinesis.initial-position} wins.
     */
    static Map<String, String> settingsFor(Map<String, String> settings) {
        Map<String, String> local = new LinkedHashMap<>();
        local.put(ConfigKeys.KINESIS_STREAM_ARN.name(), STREAM_ARN);
        local.put(ConfigKeys.KINESIS_INITIAL_POSITION.name(), "TRIM_HORIZON");
        local.putAll(settings);
        return local;
    }

    /**
     * The stream's shards when {@code --stream-shards} is not given: the fewest whose busiest shard
     * takes at most {@link #PLANNED_USE} of a shard's put limit from the fleet. Each device puts
     * {@code generator.rate / generator.devices} records a second under its id as partition key, on the
     * shard whose hash key range (CreateStream splits the 128-bit range evenly) holds the key's MD5:
     * computed per device, as the ids are known, so an uneven spread is sized for, not averaged
     * away. The demo's 200 devices at 2,000 a second once ran on 2 shards, 101 devices, 1,010 records a
     * second on one of them: above its limit, the feeder fell behind.
     */
    static int shardsFor(PeriodTablesConfig config) {
        int devices = config.get(ConfigKeys.GENERATOR_DEVICES);
        double perDevice = config.get(ConfigKeys.GENERATOR_RATE) / devices;
        FleetGenerator fleet = FleetGenerator.of(config, Instant.EPOCH);
        BigInteger[] hashKeys = new BigInteger[devices];
        long recordBytes = 0;
        for (int d = 0; d < devices; d++) {
            String key = FleetGenerator.deviceId(d);
            hashKeys[d] = new BigInteger(1, md5(key));
            recordBytes =
                    Math.max(recordBytes, key.length() + fleet.map((long) d).getBytes(StandardCharsets.UTF_8).length);
        }
        for (int shards = 1; shards < MAX_SHARDS; shards++) {
            BigInteger width = BigInteger.ONE.shiftLeft(128).divide(BigInteger.valueOf(shards));
            int[] perShard = new int[shards];
            for (BigInteger hashKey : hashKeys) {
                perShard[Math.min(shards - 1, hashKey.divide(width).intValue())]++;
            }
            double busiest = Arrays.stream(perShard).max().orElse(0) * perDevice;
            if (busiest <= PLANNED_USE * RECORDS_PER_SHARD && busiest * recordBytes <= PLANNED_USE * BYTES_PER_SHARD) {
                return shards;
            }
        }
        return MAX_SHARDS;
    }

    private static byte[] md5(String partitionKey) {
        try {
            return MessageDigest.getInstance("MD5").digest(partitionKey.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has MD5", e);
        }
    }

    /** Starts kinesalite and creates the stream; returns once the stream is active. */
    static LocalKinesis start(int shards) {
        Kinesalite kinesalite = Kinesalite.start();
        try {
            kinesalite.createStream(STREAM, shards);
        } catch (RuntimeException e) {
            kinesalite.close();
            throw e;
        }
        System.out.println("kinesalite (node, pid " + kinesalite.pid() + ") at " + kinesalite.endpoint() + ", stream "
                + STREAM + " with " + shards + " shards");
        return new LocalKinesis(kinesalite, shards);
    }

    /** {@code config} with the emulator's endpoint. */
    PeriodTablesConfig configure(PeriodTablesConfig config) {
        return config.with(ConfigKeys.KINESIS_ENDPOINT, kinesalite.endpoint().toString());
    }

    /**
     * True once the job's source reads the stream: as many source subtasks as can have a shard have
     * each read theirs once ({@code millisBehindLatest} at 0 or more, -1 before the first GetRecords).
     * A fleet fed from then has no backlog from the source's start (its shard discovery, its iterators)
     * to catch up on.
     */
    boolean sourceReads() {
        long[] reading = LocalStatusReporter.countAtLeast(StatusLine.SOURCE_SCOPE, UserMetrics.MILLIS_BEHIND_LATEST, 0);
        return reading[1] > 0 && reading[0] >= Math.min(reading[1], shards);
    }

    /**
     * Starts putting the fleet into the stream; returns the wall-clock time (epoch millis) the fleet starts at.
     *
     * @param why when, for the summary: "once its source read every shard"
     */
    long feed(PeriodTablesConfig config, long submittedMillis, String why) {
        feeder = KinesisFeeder.start(config);
        fedFrom = String.format(
                "%.1f s after the job's submission, %s", (feeder.startMillis() - submittedMillis) / 1000.0, why);
        return feeder.startMillis();
    }

    boolean feeding() {
        return feeder != null;
    }

    /** For the status line: records put so far. */
    String status() {
        KinesisFeeder f = feeder;
        return String.format("put %,d", f == null ? 0 : f.put());
    }

    /**
     * Ends the fleet now: every reading due before now put, none after. Returns the wall-clock time (epoch
     * millis) it ended at, on the clock {@link #feed} returned its start on, or now when it never started.
     *
     * @param read how many records the job has read so far
     */
    long endFleet(LongSupplier read) {
        KinesisFeeder f = feeder;
        if (f == null) {
            return System.currentTimeMillis();
        }
        readAtEnd = read.getAsLong();
        long ended = f.finish();
        put = f.put();
        return ended;
    }

    /**
     * Waits (up to 2 minutes) until the job has read what the ended fleet put, so that the run's totals
     * cover everything in the stream.
     *
     * @param read how many records the job has read so far
     * @param tick called about every 100 ms while waiting (the status line)
     */
    void awaitRead(LongSupplier read, Runnable tick) {
        long deadline = System.nanoTime() + CATCH_UP_NANOS;
        while (feeder != null && read.getAsLong() < put && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            tick.run();
        }
    }

    /**
     * One line for the summary: what the stream got and from where the job read it; a second one when
     * its shards refused records the feeder then put again.
     */
    String summary(PeriodTablesConfig config) {
        KinesisFeeder f = feeder;
        String line = String.format(
                "Kinesis: %,d records put into stream %s (%d shards, kinesalite at %s), read from %s",
                put, STREAM, shards, kinesalite.endpoint(), config.get(ConfigKeys.KINESIS_INITIAL_POSITION));
        if (f != null) {
            // the job keeps up when it reads what is put as it is put: this is how far behind it was
            line += String.format(
                    "%nKinesis: the fleet ran from %s; when it stopped, the job had read %,d of its records (%,d"
                            + " behind, %.1f s of the fleet)",
                    fedFrom,
                    Math.min(readAtEnd, put),
                    Math.max(0, put - readAtEnd),
                    Math.max(0, put - readAtEnd) / config.get(ConfigKeys.GENERATOR_RATE));
        }
        if (f != null && f.failure() != null) {
            line += "; the feeder stopped early: " + f.failure();
        }
        if (f != null && f.refused() > 0) {
            line += String.format(
                    "%nKinesis: the stream's shards refused %,d puts of records (a shard takes 1,000 records and 1 MiB"
                            + " a second;"
                            + " more --stream-shards take more), each put again",
                    f.refused());
        }
        return line;
    }

    /** Stops the feeder and kinesalite. */
    @Override
    public void close() {
        KinesisFeeder f = feeder;
        if (f != null) {
            f.stop();
        }
        kinesalite.close();
    }
}
