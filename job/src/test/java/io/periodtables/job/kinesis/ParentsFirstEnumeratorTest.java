package io.periodtables.job.kinesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.job.time.WatermarkHandOver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.connector.kinesis.source.enumerator.KinesisStreamsSourceEnumeratorState;
import org.apache.flink.connector.kinesis.source.split.KinesisShardSplit;
import org.apache.flink.connector.kinesis.source.split.StartingPosition;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.KinesisException;
import software.amazon.awssdk.services.kinesis.model.ListShardsRequest;
import software.amazon.awssdk.services.kinesis.model.ListShardsResponse;
import software.amazon.awssdk.services.kinesis.model.Shard;

/**
 * Children after their parents, on a parent's reader: the enumerator between the connector's
 * (here a stand-in that assigns what the test tells it to) and the readers.
 */
class ParentsFirstEnumeratorTest {
    private static final String ARN = "arn:aws:kinesis:us-east-1:000000000000:stream/readings";

    private final Map<String, List<String>> parents = new HashMap<>();
    private final RecordingContext context = new RecordingContext(3);
    private final StockStandIn stock = new StockStandIn();
    private final ParentsFirstEnumerator enumerator =
            new ParentsFirstEnumerator(context, lineage(), gate -> stock.using(gate));

    /**
     * Subtask 2 has never had a shard (more subtasks than shards): a split's children wait for
     * their parent, then one goes to the parent's reader and the other to the spare reader, never
     * to the reader of the other shard, whose watermark may be ahead of theirs.
     */
    @Test
    void splitChildrenWaitForTheirParentThenOneGoesToItsReaderAndOneToASpareReader() {
        parents.put("c1", List.of("p"));
        parents.put("c2", List.of("p"));
        stock.assign(0, "p");
        stock.assign(1, "other");

        stock.assign(2, "c1", "c2");
        assertThat(context.assigned()).isEqualTo(Map.of(0, List.of("p"), 1, List.of("other")));

        enumerator.handleSourceEvent(0, new ShardEvents.Finished(List.of("p")));
        assertThat(context.assigned()).isEqualTo(Map.of(0, List.of("p", "c1"), 1, List.of("other"), 2, List.of("c2")));
    }

    /**
     * The hand-over, in order: p's reader is told to hold before it gets c1 (a new split would end
     * its hold), says the watermark it holds, c2's reader is told to take it over, and once that
     * reader says it has, p's reader lets go.
     */
    @Test
    void theParentsReaderHoldsItsWatermarkUntilTheSpareReaderTookItOver() {
        splitOfPWithASpareReader();

        enumerator.handleSourceEvent(0, new ShardEvents.Finished(List.of("p")));
        assertThat(context.log)
                .containsExactly(
                        "assign {0=[p]}", "assign {1=[other]}", "to 0: Hold[splitIds=[p]]", "assign {0=[c1], 2=[c2]}");

        enumerator.handleSourceEvent(0, new WatermarkHandOver.Held(Map.of("p", 37_799_999L), List.of()));
        assertThat(context.log).endsWith("to 2: TakeOver[splitId=c2, watermark=37799999]");

        enumerator.handleSourceEvent(2, new WatermarkHandOver.TookOver("c2", 37_799_999L));
        assertThat(context.log).endsWith("to 0: Release[splitIds=[p]]");
    }

    /** Every subtask reads a shard: both children go to the parent's reader, and nobody is told to hold. */
    @Test
    void aReaderThatHasReadAShardIsNeverGivenAnotherReadersChild() {
        parents.put("c1", List.of("p"));
        parents.put("c2", List.of("p"));
        stock.assign(0, "p", "other");
        stock.assign(1, "sibling");
        stock.assign(2, "third");
        enumerator.handleSourceEvent(2, new ShardEvents.Finished(List.of("third")));
        stock.assign(1, "c1", "c2");

        enumerator.handleSourceEvent(0, new ShardEvents.Finished(List.of("p")));

        assertThat(context.assigned())
                .isEqualTo(Map.of(0, List.of("p", "other", "c1", "c2"), 1, List.of("sibling"), 2, List.of("third")));
        assertThat(context.log).noneMatch(line -> line.contains("Hold"));
    }

    /**
     * The spare reader fails before it took over: the parent's reader goes on holding (no release),
     * and when the connector assigns the child again it goes to the parent's reader, whose new split
     * then holds the watermark itself: the hold ends after that assignment.
     */
    @Test
    void aChildWhoseReaderFailedBeforeTakingOverIsHandedOutAgainBeforeTheHoldEnds() {
        splitOfPWithASpareReader();
        enumerator.handleSourceEvent(0, new ShardEvents.Finished(List.of("p")));
        enumerator.handleSourceEvent(0, new WatermarkHandOver.Held(Map.of("p", 37_799_999L), List.of()));

        enumerator.addSplitsBack(List.of(split("c2")), 2);
        assertThat(context.log).noneMatch(line -> line.contains("Release"));
        stock.assign(2, "c2");

        assertThat(context.log).endsWith("assign {0=[c2]}", "to 0: Release[splitIds=[p]]");
    }

    /**
     * A restore with a hand-over half done: the restored enumerator knows of no hand-over (nothing
     * of it is checkpointed, and every reader restarted without a hold), so a reader's late answer
     * from before moves nothing, and a restored reader without a shard is spare again.
     */
    @Test
    void aRestoredEnumeratorIgnoresAnswersToAHandOverFromBeforeTheRestore() {
        enumerator.handleSourceEvent(0, new WatermarkHandOver.Held(Map.of("p", 37_799_999L), List.of()));
        enumerator.handleSourceEvent(2, new WatermarkHandOver.TookOver("c2", 37_799_999L));
        assertThat(context.log).isEmpty();

        parents.put("c3", List.of("c1"));
        parents.put("c4", List.of("c1"));
        enumerator.handleSourceEvent(0, new ShardEvents.Reading(List.of("c1")));
        enumerator.handleSourceEvent(1, new ShardEvents.Reading(List.of("other")));
        enumerator.handleSourceEvent(0, new ShardEvents.Finished(List.of("c1")));
        stock.assign(Map.of(0, List.of("c3"), 1, List.of("c4")));

        assertThat(context.assigned()).isEqualTo(Map.of(0, List.of("c3"), 2, List.of("c4")));
        assertThat(context.log).contains("to 0: Hold[splitIds=[c1]]");
    }

    /** The parent's reader restarted before it was told to hold: no one is told to take over, or to let go. */
    @Test
    void aHoldTheParentsReaderNoLongerHasEndsTheHandOver() {
        splitOfPWithASpareReader();
        enumerator.handleSourceEvent(0, new ShardEvents.Finished(List.of("p")));

        enumerator.handleSourceEvent(0, new WatermarkHandOver.Held(Map.of(), List.of("p")));
        enumerator.handleSourceEvent(2, new WatermarkHandOver.TookOver("c2", 37_799_999L));

        assertThat(context.log).last().isEqualTo("assign {0=[c1], 2=[c2]}");
    }

    @Test
    void aMergedChildWaitsForBothParentsAndGoesToTheParentsReaderThatReadsNothingElse() {
        parents.put("m", List.of("a", "b"));
        stock.assign(0, "a");
        stock.assign(1, "b", "other");
        stock.assign(2, "m");

        enumerator.handleSourceEvent(0, new ShardEvents.Finished(List.of("a")));
        assertThat(context.assigned()).doesNotContainValue(List.of("m"));
        enumerator.handleSourceEvent(1, new ShardEvents.Finished(List.of("b")));

        assertThat(context.assigned()).isEqualTo(Map.of(0, List.of("a", "m"), 1, List.of("b", "other")));
    }

    /**
     * A split while the parent's reader is at its tip: the parent is read to its end before the
     * connector's next discovery lists the children, and it spreads them over the readers. They go
     * to the parent's reader, which holds the parent's watermark until they come, and to the spare
     * reader; never to the sibling's reader, which may be hours of event time ahead of them.
     */
    @Test
    void childrenListedAfterTheirParentFinishedGoToTheParentsReaderAndTheSpareOne() {
        parents.put("c1", List.of("p"));
        parents.put("c2", List.of("p"));
        stock.assign(0, "p");
        stock.assign(1, "sibling");
        enumerator.handleSourceEvent(0, new ShardEvents.Finished(List.of("p")));

        stock.assign(Map.of(0, List.of("c1"), 1, List.of("c2")));

        assertThat(context.assigned())
                .isEqualTo(Map.of(0, List.of("p", "c1"), 1, List.of("sibling"), 2, List.of("c2")));
    }

    /** A merge listed after both parents finished goes to a parent's reader that reads nothing else. */
    @Test
    void aMergeListedAfterItsParentsFinishedGoesToAParentsReaderThatReadsNothingElse() {
        parents.put("m", List.of("a", "b"));
        stock.assign(0, "a", "other");
        stock.assign(1, "b");
        enumerator.handleSourceEvent(1, new ShardEvents.Finished(List.of("b")));
        enumerator.handleSourceEvent(0, new ShardEvents.Finished(List.of("a")));

        stock.assign(2, "m");

        assertThat(context.assigned()).isEqualTo(Map.of(0, List.of("a", "other"), 1, List.of("b", "m")));
    }

    @Test
    void aParentAndItsChildrenListedTogetherStartWithTheParentOnly() {
        parents.put("c1", List.of("p"));
        parents.put("c2", List.of("p"));
        stock.assign(Map.of(0, List.of("c1", "p"), 1, List.of("c2")));

        assertThat(context.assigned()).isEqualTo(Map.of(0, List.of("p")));
    }

    @Test
    void waitingChildrenAreInTheCheckpointAsUnassignedSplits() throws Exception {
        parents.put("c1", List.of("p"));
        stock.assign(0, "p");
        stock.assign(1, "c1");

        KinesisStreamsSourceEnumeratorState state = enumerator.snapshotState(1);

        assertThat(state.getUnassignedSplits()).containsExactly(split("c1"));
        assertThat(state.getLastSeenShardId()).isEqualTo("c1");
    }

    @Test
    void afterARestoreAChildWaitsForTheParentAReaderRestored() {
        parents.put("c1", List.of("p"));
        parents.put("c2", List.of("gone"));
        enumerator.handleSourceEvent(1, new ShardEvents.Reading(List.of("p")));

        stock.assign(2, "c1", "c2");
        // c2's parent is read by no one (finished before the checkpoint): c2 starts at once.
        assertThat(context.assigned()).isEqualTo(Map.of(2, List.of("c2")));

        enumerator.handleSourceEvent(1, new ShardEvents.Finished(List.of("p")));
        assertThat(context.assigned()).isEqualTo(Map.of(1, List.of("c1"), 2, List.of("c2")));
    }

    /**
     * Connector 4.3.0 lists the stream at its start and keeps what it found until every reader has
     * registered and its next discovery runs, up to 10 s later: the enumerator runs that discovery
     * as soon as the last reader registers.
     */
    @Test
    void theShardsWaitingForReadersAreHandedOutWhenTheLastReaderRegisters() {
        context.registered = 0;
        stock.pending = List.of("shardId-0", "shardId-1", "shardId-2");
        enumerator.start();
        for (int subtask = 0; subtask < 3; subtask++) {
            context.registered++;
            enumerator.addReader(subtask);
        }
        context.runCalls();

        assertThat(context.assigned())
                .isEqualTo(Map.of(0, List.of("shardId-0"), 1, List.of("shardId-1"), 2, List.of("shardId-2")));
        assertThat(context.periodic)
                .as("the connector's own discovery stays scheduled")
                .isEqualTo(1);
    }

    /**
     * The lineage from ListShards, which fails once with a 5xx: the enumerator waits a backoff and
     * lists again instead of failing the job, and a shard the listing does not have is not listed
     * again at its next lookup.
     */
    @Test
    void aListShardsFailureInsideTheEnumeratorIsRetriedAfterABackoff() {
        ListingKinesis kinesis = new ListingKinesis();
        kinesis.failures = 1;
        List<Long> pauses = new ArrayList<>();
        RecordingContext listed = new RecordingContext(3);
        StockStandIn listedStock = new StockStandIn();
        ParentsFirstEnumerator real =
                new ParentsFirstEnumerator(listed, ShardLineage.of(() -> kinesis, pauses::add), listedStock::using);

        listedStock.assign(0, "shardId-0");
        listedStock.assign(1, "shardId-1", "shardId-2");
        assertThat(listed.assigned()).isEqualTo(Map.of(0, List.of("shardId-0")));
        real.handleSourceEvent(0, new ShardEvents.Finished(List.of("shardId-0")));

        assertThat(listed.assigned()).isEqualTo(Map.of(0, List.of("shardId-0", "shardId-1"), 1, List.of("shardId-2")));
        assertThat(pauses).containsExactly(ShardLineage.Listed.FIRST_BACKOFF.toMillis());
        assertThat(kinesis.listings).isEqualTo(2);

        ShardLineage lineage = ShardLineage.of(() -> kinesis, pauses::add);
        assertThat(lineage.parents(ARN, "shardId-gone")).isEmpty();
        assertThat(lineage.parents(ARN, "shardId-gone")).isEmpty();
        assertThat(lineage.parents(ARN, "shardId-1")).containsExactly("shardId-0");
        assertThat(kinesis.listings)
                .as("listings, the second lineage's one included")
                .isEqualTo(3);
    }

    private ShardLineage lineage() {
        return new ShardLineage() {
            @Override
            public List<String> parents(String streamArn, String shardId) {
                return parents.getOrDefault(shardId, List.of());
            }

            @Override
            public void close() {}
        };
    }

    private static KinesisShardSplit split(String shardId) {
        return new KinesisShardSplit(ARN, shardId, StartingPosition.fromStart());
    }

    /** A stream whose shardId-0 was split into shardId-1 and shardId-2; ListShards fails {@code failures} times first. */
    private static final class ListingKinesis implements KinesisClient {
        int failures;
        int listings;

        @Override
        public ListShardsResponse listShards(ListShardsRequest request) {
            listings++;
            if (failures > 0) {
                failures--;
                throw KinesisException.builder()
                        .statusCode(503)
                        .message("Service unavailable")
                        .build();
            }
            return ListShardsResponse.builder()
                    .shards(
                            Shard.builder().shardId("shardId-0").build(),
                            Shard.builder()
                                    .shardId("shardId-1")
                                    .parentShardId("shardId-0")
                                    .build(),
                            Shard.builder()
                                    .shardId("shardId-2")
                                    .parentShardId("shardId-0")
                                    .build())
                    .build();
        }

        @Override
        public String serviceName() {
            return "kinesis";
        }

        @Override
        public void close() {}
    }

    /** Assigns what the test says through the gate, as the connector's enumerator does, and keeps its state. */
    private static final class StockStandIn
            implements SplitEnumerator<KinesisShardSplit, KinesisStreamsSourceEnumeratorState> {
        private SplitEnumeratorContext<KinesisShardSplit> gate;
        private String lastSeen;

        StockStandIn using(SplitEnumeratorContext<KinesisShardSplit> gate) {
            this.gate = gate;
            return this;
        }

        void assign(int subtask, String... shards) {
            assign(Map.of(subtask, List.of(shards)));
        }

        void assign(Map<Integer, List<String>> shards) {
            Map<Integer, List<KinesisShardSplit>> splits = new TreeMap<>();
            shards.forEach((subtask, ids) -> {
                splits.put(
                        subtask,
                        ids.stream().map(ParentsFirstEnumeratorTest::split).toList());
                lastSeen = ids.get(ids.size() - 1);
            });
            gate.assignSplits(new SplitsAssignment<>(splits));
        }

        /** What a discovery hands out once every reader has registered, one shard a subtask. */
        private List<String> pending = List.of();

        /** As the connector: a discovery every 10 s, which assigns only once every reader has registered. */
        @Override
        public void start() {
            gate.callAsync(
                    () -> pending,
                    (shards, failure) -> {
                        if (gate.registeredReaders().size() < gate.currentParallelism() || shards.isEmpty()) {
                            return;
                        }
                        Map<Integer, List<String>> bySubtask = new TreeMap<>();
                        for (int i = 0; i < shards.size(); i++) {
                            bySubtask.put(i % gate.currentParallelism(), List.of(shards.get(i)));
                        }
                        pending = List.of();
                        assign(bySubtask);
                    },
                    10_000,
                    10_000);
        }

        @Override
        public void handleSplitRequest(int subtaskId, String requesterHostname) {}

        @Override
        public void addSplitsBack(List<KinesisShardSplit> splits, int subtaskId) {}

        @Override
        public void addReader(int subtaskId) {}

        @Override
        public KinesisStreamsSourceEnumeratorState snapshotState(long checkpointId) {
            return new KinesisStreamsSourceEnumeratorState(Set.of(), lastSeen);
        }

        @Override
        public void close() {}
    }

    /** The readers' side of assignments: what each subtask got, in order. */
    private static final class RecordingContext implements SplitEnumeratorContext<KinesisShardSplit> {
        private final int parallelism;
        private final Map<Integer, List<String>> assigned = new TreeMap<>();
        /** Assignments and events to readers, in the order the enumerator sent them. */
        final List<String> log = new ArrayList<>();
        /** Readers registered so far: subtasks 0 to this less 1. */
        int registered;
        /** Calls to run once, in order, as the coordinator would; and how many periodic ones were scheduled. */
        private final List<Runnable> calls = new ArrayList<>();

        int periodic;

        RecordingContext(int parallelism) {
            this.parallelism = parallelism;
            this.registered = parallelism;
        }

        void runCalls() {
            List<Runnable> now = new ArrayList<>(calls);
            calls.clear();
            now.forEach(Runnable::run);
        }

        Map<Integer, List<String>> assigned() {
            return assigned;
        }

        @Override
        public void assignSplits(SplitsAssignment<KinesisShardSplit> assignment) {
            Map<Integer, List<String>> shards = new TreeMap<>();
            assignment
                    .assignment()
                    .forEach((subtask, splits) -> shards.put(
                            subtask,
                            splits.stream().map(KinesisShardSplit::getShardId).toList()));
            log.add("assign " + shards);
            assignment
                    .assignment()
                    .forEach((subtask, splits) -> assigned.computeIfAbsent(subtask, s -> new ArrayList<>())
                            .addAll(splits.stream()
                                    .map(KinesisShardSplit::getShardId)
                                    .toList()));
        }

        @Override
        public Map<Integer, ReaderInfo> registeredReaders() {
            Map<Integer, ReaderInfo> readers = new HashMap<>();
            for (int i = 0; i < registered; i++) {
                readers.put(i, new ReaderInfo(i, "localhost"));
            }
            return readers;
        }

        @Override
        public int currentParallelism() {
            return parallelism;
        }

        @Override
        public SplitEnumeratorMetricGroup metricGroup() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
            log.add("to " + subtaskId + ": " + event);
        }

        @Override
        public void signalNoMoreSplits(int subtask) {}

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
            calls.add(() -> {
                try {
                    handler.accept(callable.call(), null);
                } catch (Exception e) {
                    handler.accept(null, e);
                }
            });
        }

        @Override
        public <T> void callAsync(
                Callable<T> callable, BiConsumer<T, Throwable> handler, long initialDelay, long period) {
            periodic++;
        }

        @Override
        public void runInCoordinatorThread(Runnable runnable) {}
    }

    /**
     * Shard p, read by subtask 0, split into c1 and c2; subtask 1 reads another shard, subtask 2
     * none, and the connector would give it both children.
     */
    private void splitOfPWithASpareReader() {
        parents.put("c1", List.of("p"));
        parents.put("c2", List.of("p"));
        stock.assign(0, "p");
        stock.assign(1, "other");
        stock.assign(2, "c1", "c2");
    }
}
