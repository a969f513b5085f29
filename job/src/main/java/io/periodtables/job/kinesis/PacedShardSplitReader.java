package io.periodtables.job.kinesis;

import java.math.BigInteger;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ExpiredIteratorException;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.GetShardIteratorRequest;
import software.amazon.awssdk.services.kinesis.model.ListShardsResponse;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.ResourceNotFoundException;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/**
 * Reads the shards of one source subtask with GetRecords, round robin, within Kinesis's read limits
 * per shard: "5 transactions per second" and "2 MB per second" (Kinesis quotas), shared by every
 * consumer of the stream.
 *
 * <ul>
 *   <li>A shard that returned records is read again after {@link #CALL_SPACING} or after the time
 *       its bytes take at 2 MB a second, whichever is longer: a backlog is read at the limit, not
 *       above it.
 *   <li>A shard that returned no record rests for {@link #EMPTY_SHARD_PAUSE}: an idle shard costs
 *       one call a second and shows a new record within about a second.
 *   <li>A refused call ({@code ProvisionedThroughputExceededException}: another consumer of the
 *       stream takes its share) or a transient failure (5xx, a connection error) pauses that shard
 *       only, from {@link #FIRST_BACKOFF} doubling up to {@link #MAX_BACKOFF}, and is never
 *       retried inside the SDK (the reader's client does not retry), so the subtask's other shards
 *       are read meanwhile. Throttling is retried for as long as it lasts and counted apart; a
 *       transient failure fails the job after {@link #MAX_FAILURES} in a row on one shard, however
 *       many throttles came between.
 *   <li>A shard Kinesis no longer has (a closed shard past the stream's retention: unlisted, and
 *       {@code ResourceNotFoundException} for its iterators) has ended: its split finishes, with a
 *       WARN and {@code positionsTrimmed}, and its children are read.
 * </ul>
 *
 * <p>Connector 4.3.0's {@code PollingKinesisShardSplitReader} calls GetRecords back to back, also
 * on an empty shard, taking the other consumers' quota and burning a core (connector 5.1 pauses
 * empty shards too, FLINK-36947). While every shard rests, {@link #fetch()} waits for the first
 * rest to end, so an idle source burns no CPU; {@link #wakeUp()} ends that wait.
 *
 * <p>We read with the plain SDK because the connector's reader and its {@code StreamProxy} speak
 * the connector's shaded SDK types. Splits, their positions and the enumerator stay the
 * connector's. Not thread-safe, like every {@link SplitReader}, except {@link #wakeUp()}.
 */
public final class PacedShardSplitReader implements SplitReader<Record, KinesisShardSplit> {
    private static final Logger LOG = LoggerFactory.getLogger(PacedShardSplitReader.class);

    static final Duration EMPTY_SHARD_PAUSE = Duration.ofSeconds(1);
    static final Duration CALL_SPACING = Duration.ofMillis(200);
    /** Kinesis's read limit per shard, 2 MB a second, in bytes per second. */
    static final long BYTES_PER_SECOND = 2L * 1024 * 1024;

    static final Duration FIRST_BACKOFF = Duration.ofMillis(500);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
    static final int MAX_FAILURES = 10;
    /** The look for a shard's oldest record: at most this many GetRecords of at most this many records. */
    static final int TRIM_PROBE_CALLS = 3;

    static final int TRIM_PROBE_RECORDS = 100;

    private final KinesisClient kinesis;
    private final Clock clock;
    private final ShardReadMetrics metrics;
    /** Round robin: the next shard to read is the first one at the head that is not paused. */
    private final Deque<Shard> shards = new ArrayDeque<>();

    PacedShardSplitReader(KinesisClient kinesis, ShardReadMetrics metrics) {
        this(kinesis, Clock.system(), metrics);
    }

    @VisibleForTesting
    PacedShardSplitReader(KinesisClient kinesis, Clock clock, ShardReadMetrics metrics) {
        this.kinesis = kinesis;
        this.clock = clock;
        this.metrics = metrics;
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
        GetRecordsResponse response;
        try {
            response = getRecords(shard);
        } catch (ResourceNotFoundException e) {
            endIfGone(shard, e, batch);
            return batch.build();
        } catch (SdkException e) {
            backOff(shard, e);
            return batch.build();
        }
        shard.failures = 0;
        shard.throttles = 0;
        List<Record> records = response.records();
        long now = clock.nanoTime();
        if (records.isEmpty()) {
            shard.pausedUntil = now + EMPTY_SHARD_PAUSE.toNanos();
        } else {
            batch.addAll(shard.split.splitId(), records);
            shard.position = StartingPosition.continueFromSequenceNumber(
                    records.get(records.size() - 1).sequenceNumber());
            shard.pausedUntil = now + Math.max(CALL_SPACING.toNanos(), transferNanos(records));
        }
        if (response.millisBehindLatest() != null) {
            metrics.behindLatest(shard.split.splitId(), response.millisBehindLatest());
        }
        shard.iterator = response.nextShardIterator();
        if (shard.iterator == null) {
            // A closed shard (after a reshard), read to its end.
            finish(shard, batch);
        }
        return batch.build();
    }

    private void finish(Shard shard, RecordsBySplits.Builder<Record> batch) {
        shards.remove(shard);
        metrics.finished(shard.split.splitId());
        batch.addFinishedSplit(shard.split.splitId());
    }

    /**
     * Kinesis answered that the shard does not exist. A closed shard is deleted once the stream's
     * retention has passed since it closed ("EXPIRED": "Calls to getStreamDescription().getShards to
     * enumerate the shards in the stream do not include EXPIRED shards", Kinesis developer guide,
     * after resharding): when ListShards no longer lists it, the shard has ended, as its last records
     * did, and its split finishes so that its children are read, with a WARN and
     * {@code positionsTrimmed}. A shard still listed, or a stream that is gone, fails the read;
     * a listing that fails transiently rests the shard as a failed read does.
     */
    private void endIfGone(Shard shard, ResourceNotFoundException notFound, RecordsBySplits.Builder<Record> batch) {
        boolean listed;
        try {
            listed = listed(shard.split.getStreamArn(), shard.split.getShardId());
        } catch (ResourceNotFoundException streamGone) {
            notFound.addSuppressed(streamGone);
            throw notFound;
        } catch (SdkException listing) {
            backOff(shard, listing);
            return;
        }
        if (listed) {
            throw notFound;
        }
        LOG.warn(
                "Shard {} of {} no longer exists (Kinesis deletes a closed shard once the stream's retention has passed"
                        + " since it closed): its split ends at {}, the records it still had after that were lost, and"
                        + " its children are read next",
                shard.split.getShardId(),
                shard.split.getStreamArn(),
                shard.position);
        metrics.trimmed();
        finish(shard, batch);
    }

    /** Whether ListShards lists the shard. */
    private boolean listed(String streamArn, String shardId) {
        String next = null;
        do {
            String token = next;
            ListShardsResponse page =
                    kinesis.listShards(r -> r.nextToken(token).streamARN(token == null ? streamArn : null));
            for (software.amazon.awssdk.services.kinesis.model.Shard listed : page.shards()) {
                if (listed.shardId().equals(shardId)) {
                    return true;
                }
            }
            next = page.nextToken();
        } while (next != null);
        return false;
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

    /** How long the records' bytes take at Kinesis's 2 MB a second per shard. */
    private static long transferNanos(List<Record> records) {
        long bytes = 0;
        for (Record record : records) {
            bytes += record.data().asByteArrayUnsafe().length;
        }
        return bytes * 1_000_000_000L / BYTES_PER_SECOND;
    }

    /**
     * Rests the shard after a failed call, longer after each failure in a row; throttling is waited
     * out however long it lasts, another failure fails the job after {@link #MAX_FAILURES}.
     */
    private void backOff(Shard shard, SdkException failure) {
        boolean throttled = KinesisFailures.isThrottling(failure);
        if (!throttled && !KinesisFailures.isTransient(failure)) {
            throw failure;
        }
        if (throttled) {
            shard.throttles++;
            metrics.throttled();
        } else if (++shard.failures >= MAX_FAILURES) {
            throw failure;
        }
        // Throttles and failures in a row lengthen the rest alike; only failures count towards MAX_FAILURES.
        long backoff = FIRST_BACKOFF.toNanos() << Math.min(shard.failures + shard.throttles - 1, 5);
        shard.pausedUntil = clock.nanoTime() + Math.min(backoff, MAX_BACKOFF.toNanos());
        if (throttled) {
            // A refused GetRecords leaves the iterator valid; a refused GetShardIterator left none.
            return;
        }
        shard.iterator = null; // start again from the position: the iterator may be spent
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
        if (!shard.trimChecked) {
            startAtTheOldestIfTrimmed(shard);
            shard.trimChecked = true;
        }
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

    /**
     * Before a shard's first read from a sequence number (a position restored from a checkpoint):
     * when the stream has trimmed that record (an outage longer than its retention, 24 hours by
     * default), reads from the oldest record the shard still has and counts the shard in
     * {@code positionsTrimmed}, with a WARN: the records between were lost, and Kinesis does not
     * say how many. Kinesis's own answer to an iterator at a trimmed sequence number is either an
     * error or empty reads through the trimmed range; asking for the oldest record first gives
     * the same result in both cases, for two calls per shard and restore.
     */
    private void startAtTheOldestIfTrimmed(Shard shard) {
        if (!(shard.position.getStartingMarker() instanceof String position)) {
            return;
        }
        String iterator = kinesis.getShardIterator(r -> r.streamARN(shard.split.getStreamArn())
                        .shardId(shard.split.getShardId())
                        .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                .shardIterator();
        // GetRecords may answer empty although records follow: follow the iterator a few calls.
        List<Record> oldest = List.of();
        for (int call = 0; call < TRIM_PROBE_CALLS && oldest.isEmpty() && iterator != null; call++) {
            String at = iterator;
            GetRecordsResponse page = kinesis.getRecords(r ->
                    r.streamARN(shard.split.getStreamArn()).shardIterator(at).limit(TRIM_PROBE_RECORDS));
            oldest = page.records();
            iterator = Long.valueOf(0).equals(page.millisBehindLatest()) ? null : page.nextShardIterator();
        }
        if (oldest.isEmpty()) {
            return;
        }
        String first = oldest.get(0).sequenceNumber();
        if (new BigInteger(first).compareTo(new BigInteger(position)) > 0) {
            LOG.warn(
                    "Kinesis has trimmed shard {} past the position restored for it (after sequence number {}): "
                            + "reading from its oldest record, {} (arrived {}); the records between were lost",
                    shard.split.getShardId(),
                    position,
                    first,
                    oldest.get(0).approximateArrivalTimestamp());
            metrics.trimmed();
            shard.position = StartingPosition.fromStart();
        }
    }

    /** One assigned shard: where to read next and until when it is paused. */
    private static final class Shard {
        final KinesisShardSplit split;
        StartingPosition position;
        String iterator;
        long pausedUntil;
        /** False until {@link #startAtTheOldestIfTrimmed} has looked at a restored sequence number. */
        boolean trimChecked;
        /** Failed calls in a row, throttles left out: they fail the job at {@link #MAX_FAILURES}. */
        int failures;
        /** Refused calls in a row: waited out however many. */
        int throttles;

        Shard(KinesisShardSplit split, long now) {
            this.split = split;
            this.position = split.getStartingPosition();
            this.pausedUntil = now;
            this.trimChecked = !(position.getStartingMarker() instanceof String);
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
