package io.periodtables.job.kinesis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.connector.kinesis.source.split.KinesisShardSplit;
import org.apache.flink.connector.kinesis.source.split.StartingPosition;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ExpiredIteratorException;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.GetShardIteratorRequest;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/**
 * Reads the shards of one source subtask with GetRecords, round robin, and leaves a shard alone
 * for {@link #EMPTY_SHARD_PAUSE} after a GetRecords that returned no record. A shard that returned
 * records is read again at once, so a shard with a backlog is read at full speed.
 *
 * <p>Why: Kinesis allows 5 GetRecords per second per shard, shared by every consumer of the
 * stream. Connector 4.3.0's {@code PollingKinesisShardSplitReader} calls GetRecords back to back
 * on an empty shard, taking the other consumers' quota and burning a core. With the pause an idle
 * shard costs at most 4 calls per second (connector 5.1 does the same, FLINK-36947). While every
 * shard is in its pause, {@link #fetch()} waits for the first pause to end and reads that shard,
 * so an idle source burns no CPU; {@link #wakeUp()} ends that wait.
 *
 * <p>We read with the plain SDK because the connector's reader and its {@code StreamProxy} speak
 * the connector's shaded SDK types. Splits, their positions and the enumerator stay the
 * connector's. Not thread-safe, like every {@link SplitReader}, except {@link #wakeUp()}.
 */
public final class PacedShardSplitReader implements SplitReader<Record, KinesisShardSplit> {
    static final Duration EMPTY_SHARD_PAUSE = Duration.ofMillis(250);

    private final KinesisClient kinesis;
    private final Clock clock;
    /** Round robin: the next shard to read is the first one at the head that is not paused. */
    private final Deque<Shard> shards = new ArrayDeque<>();

    PacedShardSplitReader(KinesisClient kinesis) {
        this(kinesis, Clock.system());
    }

    @VisibleForTesting
    PacedShardSplitReader(KinesisClient kinesis, Clock clock) {
        this.kinesis = kinesis;
        this.clock = clock;
    }

    @Override
    public RecordsWithSplitIds<Record> fetch() {
        RecordsBySplits.Builder<Record> batch = new RecordsBySplits.Builder<>();
        Shard shard = nextUnpaused(clock.nanoTime());
        if (shard == null) {
            awaitFirstPauseEnd();
            shard = nextUnpaused(clock.nanoTime());
            if (shard == null) {
                return batch.build(); // woken up, or no shard
            }
        }
        GetRecordsResponse response = getRecords(shard);
        List<Record> records = response.records();
        if (records.isEmpty()) {
            shard.pausedUntil = clock.nanoTime() + EMPTY_SHARD_PAUSE.toNanos();
        } else {
            batch.addAll(shard.split.splitId(), records);
            shard.position = StartingPosition.continueFromSequenceNumber(
                    records.get(records.size() - 1).sequenceNumber());
        }
        shard.iterator = response.nextShardIterator();
        if (shard.iterator == null) {
            // A closed shard (after a reshard), read to its end.
            shards.remove(shard);
            batch.addFinishedSplit(shard.split.splitId());
        }
        return batch.build();
    }

    @Override
    public void handleSplitsChanges(SplitsChange<KinesisShardSplit> splitsChanges) {
        if (!(splitsChanges instanceof SplitsAddition)) {
            throw new UnsupportedOperationException("the Kinesis source only adds splits: " + splitsChanges);
        }
        long now = clock.nanoTime();
        for (KinesisShardSplit split : splitsChanges.splits()) {
            shards.addFirst(new Shard(split, now)); // read first
        }
    }

    @Override
    public void wakeUp() {
        clock.wakeUp();
    }

    @Override
    public void close() {
        kinesis.close();
    }

    /** Rotates the queue up to once around; null when every shard is paused (or none assigned). */
    private Shard nextUnpaused(long now) {
        for (int i = 0; i < shards.size(); i++) {
            Shard shard = shards.pollFirst();
            shards.addLast(shard);
            if (now - shard.pausedUntil >= 0) {
                return shard;
            }
        }
        return null;
    }

    private void awaitFirstPauseEnd() {
        if (shards.isEmpty()) {
            return; // the fetcher idles by itself when it has no split
        }
        long now = clock.nanoTime();
        long wait = Long.MAX_VALUE;
        for (Shard shard : shards) {
            wait = Math.min(wait, shard.pausedUntil - now);
        }
        try {
            clock.await(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private GetRecordsResponse getRecords(Shard shard) {
        if (shard.iterator == null) {
            shard.iterator = iteratorAt(shard);
        }
        try {
            return kinesis.getRecords(
                    r -> r.streamARN(shard.split.getStreamArn()).shardIterator(shard.iterator));
        } catch (ExpiredIteratorException e) {
            // Unused for 5 minutes (e.g. the job was backpressured): start again from the position.
            shard.iterator = iteratorAt(shard);
            return kinesis.getRecords(
                    r -> r.streamARN(shard.split.getStreamArn()).shardIterator(shard.iterator));
        }
    }

    /** A new iterator at the shard's position (from the split, or after the last record read). */
    private String iteratorAt(Shard shard) {
        StartingPosition position = shard.position;
        GetShardIteratorRequest.Builder request = GetShardIteratorRequest.builder()
                .streamARN(shard.split.getStreamArn())
                .shardId(shard.split.getShardId())
                .shardIteratorType(ShardIteratorType.fromValue(
                        position.getShardIteratorType().toString()));
        Object marker = position.getStartingMarker();
        if (marker instanceof Instant timestamp) {
            request.timestamp(timestamp);
        } else if (marker instanceof String sequenceNumber) {
            request.startingSequenceNumber(sequenceNumber);
        }
        return kinesis.getShardIterator(request.build()).shardIterator();
    }

    /** One assigned shard: where to read next and until when it is paused. */
    private static final class Shard {
        final KinesisShardSplit split;
        StartingPosition position;
        String iterator;
        long pausedUntil;

        Shard(KinesisShardSplit split, long now) {
            this.split = split;
            this.position = split.getStartingPosition();
            this.pausedUntil = now;
        }
    }

    /** Time as the reader sees it, and its wait while every shard is paused; tests pass a logical one. */
    interface Clock {
        long nanoTime();

        /** Waits up to {@code nanos}, or less if {@link #wakeUp()} is called (also just before). */
        void await(long nanos) throws InterruptedException;

        void wakeUp();

        static Clock system() {
            return new SystemClock();
        }
    }

    private static final class SystemClock implements Clock {
        private boolean wokenUp;

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public synchronized void await(long nanos) throws InterruptedException {
            long deadline = System.nanoTime() + nanos;
            for (long left = nanos; left > 0 && !wokenUp; left = deadline - System.nanoTime()) {
                wait(Math.max(1, left / 1_000_000));
            }
            wokenUp = false;
        }

        @Override
        public synchronized void wakeUp() {
            wokenUp = true;
            notifyAll();
        }
    }
}
