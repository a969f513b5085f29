package io.periodtables.job.kinesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.kinesis.source.split.KinesisShardSplit;
import org.apache.flink.connector.kinesis.source.split.StartingPosition;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ExpiredIteratorException;
import software.amazon.awssdk.services.kinesis.model.GetRecordsRequest;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.GetShardIteratorRequest;
import software.amazon.awssdk.services.kinesis.model.GetShardIteratorResponse;
import software.amazon.awssdk.services.kinesis.model.KinesisException;
import software.amazon.awssdk.services.kinesis.model.ListShardsRequest;
import software.amazon.awssdk.services.kinesis.model.ListShardsResponse;
import software.amazon.awssdk.services.kinesis.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.ResourceNotFoundException;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/** The shard reader against a scripted Kinesis, in logical time: what it calls, when, and what it emits. */
class PacedShardSplitReaderTest {
    private static final String ARN = "arn:aws:kinesis:us-east-1:000000000000:stream/readings";
    private static final long PAUSE = PacedShardSplitReader.EMPTY_SHARD_PAUSE.toNanos();
    private static final long SPACING = PacedShardSplitReader.CALL_SPACING.toNanos();

    private final LogicalClock clock = new LogicalClock();
    private final ScriptedKinesis kinesis = new ScriptedKinesis();
    private final ShardReadMetrics metrics = new ShardReadMetrics(new UnregisteredMetricsGroup());
    private final PacedShardSplitReader reader = new PacedShardSplitReader(kinesis, clock, metrics);

    @Test
    void anEmptyShardRestsWhileAShardWithRecordsIsReadAgainAfterTheCallSpacing() {
        kinesis.batches("busy", 5, 100);
        assign("busy", "idle");

        List<String> read = new ArrayList<>();
        while (kinesis.calls("busy") < 6) {
            read.addAll(sequenceNumbers(reader.fetch()));
        }

        // The busy shard was read until it had no more, 5 calls a second; the idle one once a second.
        assertThat(kinesis.calls("busy")).isEqualTo(6);
        assertThat(kinesis.calls("idle")).isEqualTo(1 + clock.now / PAUSE);
        assertThat(read).isEqualTo(kinesis.written("busy")).hasSize(500);
        assertThat(clock.waits).allMatch(nanos -> nanos > 0 && nanos <= SPACING);
    }

    /** "Each shard can support up to five read transactions per second [...] up to a maximum total data read rate of 2 MB per second" (Kinesis quotas). */
    @Test
    void aBacklogOfLargeRecordsIsReadAtTwoMegabytesASecond() {
        int recordBytes = 100 * 1024;
        kinesis.recordBytes = recordBytes;
        kinesis.batches("backlog", 20, 40); // 20 batches of 4 MB: 80 MB
        assign("backlog");

        List<String> read = new ArrayList<>();
        for (int i = 0; i < 21; i++) {
            read.addAll(sequenceNumbers(reader.fetch()));
        }

        assertThat(read).isEqualTo(kinesis.written("backlog"));
        double seconds = clock.now / 1e9;
        double megabytesPerSecond = 20.0 * 40 * recordBytes / (1024 * 1024) / seconds;
        // Each batch of 4 MB rests its shard 2 s: 78 MB read in 39 s.
        assertThat(megabytesPerSecond).isBetween(1.9, 2.0);
    }

    /** "If a call to GetRecords returns 10 MiB, subsequent calls made within the next 5 seconds throw an exception" (GetRecords). */
    @Test
    void aRefusedReadRestsOnlyItsShardAndIsRetriedUntilItIsServed() {
        kinesis.batches("refused", 1, 10);
        kinesis.batches("other", 3, 10);
        kinesis.refusals.put("refused", 4);
        assign("refused", "other");

        List<String> read = new ArrayList<>();
        while (clock.now < Duration.ofSeconds(20).toNanos()) {
            read.addAll(sequenceNumbers(reader.fetch()));
        }

        assertThat(read)
                .containsAll(kinesis.written("refused"))
                .containsAll(kinesis.written("other"))
                .doesNotHaveDuplicates()
                .hasSize(40);
        assertThat(metrics.throttledReads()).isEqualTo(4);
        // The other shard was read through while the refused one rested: 500 ms, 1 s, 2 s, 4 s.
        assertThat(kinesis.firstServed.get("refused"))
                .isGreaterThan(Duration.ofMillis(7_500).toNanos());
        assertThat(kinesis.firstServed.get("other"))
                .isLessThan(Duration.ofMillis(10).toNanos());
    }

    /**
     * "EXPIRED: After the stream's retention period has expired, all the data records in the parent
     * shard have expired and are no longer accessible. [...] Calls to getStreamDescription().getShards
     * to enumerate the shards in the stream do not include EXPIRED shards" (developer guide): a
     * restored split of such a shard ends, counted, and the reader goes on without a failure.
     */
    @Test
    void aRestoredShardKinesisNoLongerListsEndsItsSplitAndIsCounted() {
        kinesis.batches("open", 1, 5);
        kinesis.deleted.add("expired");
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(
                new KinesisShardSplit(ARN, "expired", StartingPosition.continueFromSequenceNumber("7")),
                new KinesisShardSplit(ARN, "open", StartingPosition.fromStart()))));

        List<String> finished = new ArrayList<>();
        List<String> read = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RecordsWithSplitIds<Record> batch = reader.fetch();
            finished.addAll(batch.finishedSplits());
            read.addAll(sequenceNumbers(batch));
        }

        assertThat(finished).containsExactly("expired");
        assertThat(metrics.positionsTrimmed()).isEqualTo(1);
        assertThat(read).isEqualTo(kinesis.written("open"));
        assertThat(kinesis.listings).isEqualTo(1);
    }

    /** A shard Kinesis still lists but does not find is no shard's end: the read fails. */
    @Test
    void aShardStillListedThatKinesisDoesNotFindFailsTheRead() {
        assign("gone");
        kinesis.missing.add("gone");

        assertThatThrownBy(reader::fetch).isInstanceOf(ResourceNotFoundException.class);
        assertThat(metrics.positionsTrimmed()).isZero();
    }

    /** Nine refusals by a competing consumer, then nine 5xx: the refusals are no failures, the read goes on. */
    @Test
    void throttlesDoNotCountAgainstTheFailuresThatFailTheRead() {
        kinesis.batches("s", 1, 10);
        kinesis.refusals.put("s", 9);
        kinesis.serverErrors.put("s", PacedShardSplitReader.MAX_FAILURES - 1);
        assign("s");

        List<String> read = new ArrayList<>();
        for (int i = 0; i < 2 * PacedShardSplitReader.MAX_FAILURES; i++) {
            read.addAll(sequenceNumbers(reader.fetch()));
        }

        assertThat(read).isEqualTo(kinesis.written("s"));
        assertThat(metrics.throttledReads()).isEqualTo(9);
    }

    @Test
    void tenTransientFailuresInARowFailTheRead() {
        kinesis.batches("s", 1, 10);
        kinesis.serverErrors.put("s", PacedShardSplitReader.MAX_FAILURES);
        assign("s");

        for (int i = 0; i < PacedShardSplitReader.MAX_FAILURES - 1; i++) {
            reader.fetch();
        }
        assertThatThrownBy(reader::fetch).isInstanceOf(KinesisException.class);
    }

    /** "A stream keeps records for its retention (24 hours by default)": a restored position the stream trimmed. */
    @Test
    void aRestoredPositionTheStreamHasTrimmedIsReadFromTheOldestRecordAndCounted() {
        kinesis.batches("s", 3, 10);
        String lost = "1";
        reader.handleSplitsChanges(new SplitsAddition<>(
                List.of(new KinesisShardSplit(ARN, "s", StartingPosition.continueFromSequenceNumber(lost)))));

        List<String> read = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            read.addAll(sequenceNumbers(reader.fetch()));
        }

        assertThat(read).isEqualTo(kinesis.written("s"));
        assertThat(metrics.positionsTrimmed()).isEqualTo(1);
        assertThat(kinesis.iteratorRequests)
                .extracting(GetShardIteratorRequest::shardIteratorTypeAsString)
                .containsExactly("TRIM_HORIZON", "TRIM_HORIZON");
    }

    @Test
    void aRestoredPositionTheStreamStillHoldsContinuesAfterItsRecord() {
        kinesis.batches("s", 3, 10);
        String position = kinesis.written("s").get(9);
        reader.handleSplitsChanges(new SplitsAddition<>(
                List.of(new KinesisShardSplit(ARN, "s", StartingPosition.continueFromSequenceNumber(position)))));

        List<String> read = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            read.addAll(sequenceNumbers(reader.fetch()));
        }

        assertThat(read).isEqualTo(kinesis.written("s").subList(10, 30));
        assertThat(metrics.positionsTrimmed()).isZero();
        assertThat(kinesis.iteratorRequests)
                .extracting(r -> r.shardIteratorTypeAsString() + " " + r.startingSequenceNumber())
                .containsExactly("TRIM_HORIZON null", "AFTER_SEQUENCE_NUMBER " + position);
    }

    @Test
    void millisBehindLatestIsTheLargestOfTheShards() {
        kinesis.batches("a", 1, 1);
        kinesis.behind.put("a", 5_000L);
        kinesis.behind.put("b", 200L);
        assign("a", "b");
        assertThat(metrics.millisBehindLatest()).isEqualTo(-1);

        reader.fetch();
        reader.fetch();

        assertThat(metrics.millisBehindLatest()).isEqualTo(5_000);
    }

    @Test
    void idleShardsAreReadOnceASecondAndTheReaderSleepsBetween() {
        assign("a", "b", "c");

        int fetches = 0;
        while (clock.now < Duration.ofSeconds(10).toNanos()) {
            assertThat(sequenceNumbers(reader.fetch())).isEmpty();
            fetches++;
        }

        for (String shard : List.of("a", "b", "c")) {
            assertThat(kinesis.calls(shard)).isBetween(9, 11);
        }
        // Every fetch called Kinesis, after sleeping out the first pause if every shard was paused: no busy loop.
        assertThat(fetches).isEqualTo(kinesis.calls("a") + kinesis.calls("b") + kinesis.calls("c"));
        assertThat(clock.waits).hasSizeLessThan(fetches).allMatch(nanos -> nanos > 0 && nanos <= PAUSE);
    }

    @Test
    void aShardThatGetsRecordsAfterItsPauseIsReadAtFullSpeedAgain() {
        assign("s");
        reader.fetch(); // empty: paused
        kinesis.batches("s", 3, 10);

        for (int i = 0; i < 3; i++) {
            assertThat(sequenceNumbers(reader.fetch())).hasSize(10);
        }
        // The first fetch slept out the pause, the others the call spacing.
        assertThat(clock.waits).hasSize(3);
        assertThat(clock.waits.get(0)).isBetween(PAUSE - SPACING, PAUSE);
        assertThat(clock.waits.subList(1, 3)).allMatch(nanos -> nanos > 0 && nanos <= SPACING);
    }

    @Test
    void aClosedShardFinishesItsSplitAfterItsLastRecords() {
        kinesis.batches("closing", 1, 3);
        kinesis.closed.add("closing");
        assign("closing", "open");

        RecordsWithSplitIds<Record> last = null;
        for (int i = 0; i < 4; i++) {
            RecordsWithSplitIds<Record> batch = reader.fetch();
            if (!batch.finishedSplits().isEmpty()) {
                last = batch;
            }
        }

        assertThat(last).isNotNull();
        assertThat(last.finishedSplits()).containsExactly("closing");
        assertThat(sequenceNumbers(last)).hasSize(3);
        assertThat(kinesis.calls("closing")).isEqualTo(1);
    }

    @Test
    void anExpiredIteratorIsRenewedAfterTheLastRecordRead() {
        kinesis.batches("s", 2, 4);
        assign("s");
        reader.fetch();
        kinesis.expireNext = true;

        assertThat(sequenceNumbers(reader.fetch())).hasSize(4);
        assertThat(kinesis.iteratorRequests)
                .extracting(r -> r.shardIteratorTypeAsString() + " " + r.startingSequenceNumber())
                .containsExactly(
                        "TRIM_HORIZON null",
                        "AFTER_SEQUENCE_NUMBER " + kinesis.written("s").get(3));
    }

    @Test
    void wakeUpEndsTheWait() throws Exception {
        PacedShardSplitReader.Clock system = PacedShardSplitReader.Clock.system();
        Thread waiting = new Thread(() -> {
            try {
                system.await(TimeUnit.HOURS.toNanos(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiting.start();
        while (waiting.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }
        system.wakeUp();
        waiting.join(TimeUnit.MINUTES.toMillis(1));
        assertThat(waiting.isAlive()).as("still waiting after wakeUp").isFalse();

        system.wakeUp(); // before a wait: that wait returns at once
        system.await(TimeUnit.HOURS.toNanos(1));
    }

    private void assign(String... shards) {
        List<KinesisShardSplit> splits = new ArrayList<>();
        for (String shard : shards) {
            splits.add(new KinesisShardSplit(ARN, shard, StartingPosition.fromStart()));
        }
        reader.handleSplitsChanges(new SplitsAddition<>(splits));
    }

    private static List<String> sequenceNumbers(RecordsWithSplitIds<Record> batch) {
        List<String> read = new ArrayList<>();
        while (batch.nextSplit() != null) {
            for (Record r = batch.nextRecordFromSplit(); r != null; r = batch.nextRecordFromSplit()) {
                read.add(r.sequenceNumber());
            }
        }
        return read;
    }

    /** Logical time: waiting advances it by the time asked for. */
    private static final class LogicalClock implements PacedShardSplitReader.Clock {
        long now;
        final List<Long> waits = new ArrayList<>();

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void await(long nanos) {
            waits.add(nanos);
            now += nanos;
        }

        @Override
        public void wakeUp() {}
    }

    /**
     * Kinesis with batches of records scripted per shard; an iterator names its shard and its
     * position in the shard's records. Every call takes 1 ms of logical time. A GetRecords with a
     * limit is the reader asking for a shard's oldest record: answered without moving the script.
     */
    private final class ScriptedKinesis implements KinesisClient {
        final Map<String, Deque<List<Record>>> pending = new HashMap<>();
        final Map<String, List<String>> written = new HashMap<>();
        final Map<String, Integer> calls = new HashMap<>();
        final List<String> closed = new ArrayList<>();
        final List<GetShardIteratorRequest> iteratorRequests = new ArrayList<>();
        final Map<String, Integer> refusals = new HashMap<>();
        final Map<String, Long> firstServed = new HashMap<>();
        final Map<String, Long> behind = new HashMap<>();
        final List<String> missing = new ArrayList<>();
        /** Shards Kinesis deleted: unlisted, and no iterator for them. */
        final List<String> deleted = new ArrayList<>();

        final Map<String, Integer> serverErrors = new HashMap<>();
        int listings;
        boolean expireNext;
        int recordBytes;
        long sequence = 1000;

        void batches(String shard, int count, int size) {
            for (int b = 0; b < count; b++) {
                List<Record> batch = new ArrayList<>();
                for (int i = 0; i < size; i++) {
                    String seq = String.valueOf(sequence++);
                    batch.add(Record.builder()
                            .sequenceNumber(seq)
                            .partitionKey("p")
                            .data(
                                    recordBytes == 0
                                            ? SdkBytes.fromUtf8String("r" + seq)
                                            : SdkBytes.fromByteArray(new byte[recordBytes]))
                            .approximateArrivalTimestamp(Instant.EPOCH)
                            .build());
                    written.computeIfAbsent(shard, s -> new ArrayList<>()).add(seq);
                }
                pending.computeIfAbsent(shard, s -> new ArrayDeque<>()).add(batch);
            }
        }

        List<String> written(String shard) {
            return written.getOrDefault(shard, List.of());
        }

        int calls(String shard) {
            return calls.getOrDefault(shard, 0);
        }

        @Override
        public GetShardIteratorResponse getShardIterator(GetShardIteratorRequest request) {
            iteratorRequests.add(request);
            String shard = request.shardId();
            if (deleted.contains(shard)) {
                throw ResourceNotFoundException.builder()
                        .message("Shard " + shard + " in stream readings under account 000000000000 does not exist")
                        .build();
            }
            if (request.shardIteratorType() == ShardIteratorType.AFTER_SEQUENCE_NUMBER) {
                // Records up to the position were read before (a restore): leave them out.
                BigInteger after = new BigInteger(request.startingSequenceNumber());
                pending.getOrDefault(shard, new ArrayDeque<>())
                        .removeIf(batch -> new BigInteger(batch.get(0).sequenceNumber()).compareTo(after) <= 0);
            }
            return GetShardIteratorResponse.builder().shardIterator(shard).build();
        }

        @Override
        public GetRecordsResponse getRecords(GetRecordsRequest request) {
            clock.now += TimeUnit.MILLISECONDS.toNanos(1);
            if (expireNext) {
                expireNext = false;
                throw ExpiredIteratorException.builder().message("expired").build();
            }
            if (request.limit() != null) {
                String shard = request.shardIterator();
                Deque<List<Record>> batches = pending.getOrDefault(shard, new ArrayDeque<>());
                return GetRecordsResponse.builder()
                        .records(
                                batches.isEmpty()
                                        ? List.of()
                                        : List.of(batches.peek().get(0)))
                        .nextShardIterator(request.shardIterator())
                        .build();
            }
            String shard = request.shardIterator();
            calls.merge(shard, 1, Integer::sum);
            if (missing.contains(shard)) {
                throw ResourceNotFoundException.builder()
                        .message("no shard " + shard)
                        .build();
            }
            if (refusals.getOrDefault(shard, 0) > 0) {
                refusals.merge(shard, -1, Integer::sum);
                throw ProvisionedThroughputExceededException.builder()
                        .message("Rate exceeded for shard " + shard)
                        .build();
            }
            if (serverErrors.getOrDefault(shard, 0) > 0) {
                serverErrors.merge(shard, -1, Integer::sum);
                throw KinesisException.builder()
                        .statusCode(500)
                        .message("Internal failure")
                        .build();
            }
            firstServed.putIfAbsent(shard, clock.now);
            Deque<List<Record>> batches = pending.getOrDefault(shard, new ArrayDeque<>());
            List<Record> records = batches.isEmpty() ? List.of() : batches.poll();
            boolean end = closed.contains(shard) && batches.isEmpty();
            return GetRecordsResponse.builder()
                    .records(records)
                    .nextShardIterator(end ? null : shard)
                    .millisBehindLatest(behind.getOrDefault(shard, 0L))
                    .build();
        }

        /** Every shard the test scripted or the reader asked for, but the deleted ones. */
        @Override
        public ListShardsResponse listShards(ListShardsRequest request) {
            listings++;
            Set<String> shards = new TreeSet<>(written.keySet());
            shards.addAll(calls.keySet());
            missing.forEach(shards::add);
            shards.removeAll(deleted);
            return ListShardsResponse.builder()
                    .shards(shards.stream()
                            .map(id -> Shard.builder().shardId(id).build())
                            .toList())
                    .build();
        }

        @Override
        public String serviceName() {
            return "kinesis";
        }

        @Override
        public void close() {}
    }
}
