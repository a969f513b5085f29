package io.periodtables.bench.freshness;

import io.periodtables.bench.BenchLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/**
 * A second reader of one shard, next to the job's source, that times each {@code GetRecords}
 * round trip: what the source's fetcher waits per call on this emulator and machine. It reads
 * from LATEST like a consumer that keeps up, and after an empty answer waits {@link #EMPTY_PAUSE}
 * as the job's reader does; one shard of several, so it adds little to the emulator's work.
 */
final class GetRecordsTimer implements AutoCloseable {
    static final Duration EMPTY_PAUSE = Duration.ofMillis(250);

    private final KinesisClient kinesis;
    private final ScheduledExecutorService reader = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "get-records-timer");
        t.setDaemon(true);
        return t;
    });
    private final List<Long> roundTrips = new ArrayList<>(); // guarded by this
    private String iterator;
    private long pausedUntil;

    GetRecordsTimer(KinesisClient kinesis, String stream) {
        this.kinesis = kinesis;
        String shard =
                kinesis.listShards(b -> b.streamName(stream)).shards().get(0).shardId();
        this.iterator = kinesis.getShardIterator(
                        b -> b.streamName(stream).shardId(shard).shardIteratorType(ShardIteratorType.LATEST))
                .shardIterator();
        reader.scheduleWithFixedDelay(this::read, 0, 1, TimeUnit.MILLISECONDS);
    }

    private void read() {
        if (iterator == null || System.nanoTime() < pausedUntil) {
            return;
        }
        long start = System.nanoTime();
        GetRecordsResponse response;
        try {
            String current = iterator;
            response = kinesis.getRecords(b -> b.shardIterator(current));
        } catch (RuntimeException e) {
            BenchLog.log("GetRecords timer stopped: " + e);
            iterator = null;
            return;
        }
        long end = System.nanoTime();
        synchronized (this) {
            roundTrips.add(end - start);
        }
        iterator = response.nextShardIterator();
        if (response.records().isEmpty()) {
            pausedUntil = end + EMPTY_PAUSE.toNanos();
        }
    }

    /** The round trips (ns) since the last call. */
    synchronized List<Long> take() {
        List<Long> taken = List.copyOf(roundTrips);
        roundTrips.clear();
        return taken;
    }

    @Override
    public void close() {
        reader.shutdownNow();
    }
}
