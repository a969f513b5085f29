package io.periodtables.job.kinesis;

import io.periodtables.job.time.WatermarkHandOver;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.connector.kinesis.source.enumerator.KinesisStreamsSourceEnumeratorState;
import org.apache.flink.connector.kinesis.source.split.KinesisShardSplit;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connector 4.3.0's enumerator, with a child shard assigned only once its parents have been read to
 * their end. The stock enumerator assigns every shard as soon as it lists it, so after a reshard a
 * child was read beside its parent: a device's newer readings before its older ones.
 *
 * <p>Readers say which shards they read ({@link ShardEvents.Reading}, also the ones restored from a
 * checkpoint) and which they read to the end ({@link ShardEvents.Finished}). A child whose parent is
 * still read, or waits itself, waits here; once the last parent is finished it goes to the parents'
 * reader (one that has no other shard left, else the one that finished the last parent), which
 * still holds the parent's watermark (see {@code SplitEventTime}), unless that reader already reads
 * a shard and a reader that has never had one is registered: then it goes there, the least loaded,
 * and the parents' reader holds until that reader takes the watermark over ({@link HandOvers}). So
 * a split's two children are read by two subtasks when the job has a spare one (more subtasks than
 * shards), and spare subtasks take children over as reshards come; a reader that has read a shard
 * never gets another's child, as its watermark may be ahead of the child's readings and cannot go
 * back. So does a child listed after its parents finished (a split while the parent's reader was
 * at its tip: the connector lists shards every 10 s), while the enumerator remembers who finished
 * them (the last {@value Gate#REMEMBERED_FINISHED} finished shards, not checkpointed); a child of
 * parents finished before that, before a restore, or that Kinesis deleted, goes where the stock
 * enumerator puts it. Waiting children are in the checkpoint as the stock enumerator's unassigned
 * splits, so its savepoints restore into this enumerator and back; after a restore they wait again
 * for the parents the readers restored.
 */
final class ParentsFirstEnumerator implements SplitEnumerator<KinesisShardSplit, KinesisStreamsSourceEnumeratorState> {
    private static final Logger LOG = LoggerFactory.getLogger(ParentsFirstEnumerator.class);

    private final Gate gate;
    private final SplitEnumerator<KinesisShardSplit, KinesisStreamsSourceEnumeratorState> stock;

    /** {@code stock} makes the connector's enumerator with the context it must assign through. */
    ParentsFirstEnumerator(
            SplitEnumeratorContext<KinesisShardSplit> context,
            ShardLineage lineage,
            Function<
                            SplitEnumeratorContext<KinesisShardSplit>,
                            SplitEnumerator<KinesisShardSplit, KinesisStreamsSourceEnumeratorState>>
                    stock) {
        this.gate = new Gate(context, lineage);
        this.stock = stock.apply(gate);
    }

    @Override
    public void start() {
        stock.start();
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        stock.handleSplitRequest(subtaskId, requesterHostname);
    }

    @Override
    public void addSplitsBack(List<KinesisShardSplit> splits, int subtaskId) {
        splits.forEach(split -> gate.reading.remove(split.splitId()));
        stock.addSplitsBack(splits, subtaskId);
    }

    /**
     * Once every reader has registered, runs the connector's shard discovery at once: connector
     * 4.3.0 keeps the shards it listed before then unassigned until its next discovery, up to
     * 10 s later, while the readers that have none go idle.
     */
    @Override
    public void addReader(int subtaskId) {
        stock.addReader(subtaskId);
        if (gate.discovery != null && gate.registeredReaders().size() >= gate.currentParallelism()) {
            LOG.info("Every reader registered: listing the stream now to hand out the shards that wait");
            gate.discovery.run();
        }
    }

    @Override
    public void handleSourceEvent(int subtaskId, SourceEvent event) {
        if (event instanceof ShardEvents.Reading reading) {
            reading.splitIds().forEach(id -> gate.reading.put(id, subtaskId));
            gate.used.add(subtaskId);
        } else if (event instanceof ShardEvents.Finished finished) {
            gate.finished(subtaskId, finished.splitIds());
        } else if (event instanceof WatermarkHandOver.Held held) {
            gate.handOvers.held(subtaskId, held);
        } else if (event instanceof WatermarkHandOver.TookOver tookOver) {
            gate.handOvers.tookOver(subtaskId, tookOver);
        } else {
            stock.handleSourceEvent(subtaskId, event);
        }
    }

    @Override
    public KinesisStreamsSourceEnumeratorState snapshotState(long checkpointId) throws Exception {
        KinesisStreamsSourceEnumeratorState state = stock.snapshotState(checkpointId);
        if (gate.waiting.isEmpty()) {
            return state;
        }
        Set<KinesisShardSplit> unassigned = new HashSet<>(state.getUnassignedSplits());
        unassigned.addAll(gate.waiting.values());
        return new KinesisStreamsSourceEnumeratorState(unassigned, state.getLastSeenShardId());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        stock.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void close() throws IOException {
        try {
            stock.close();
        } finally {
            gate.lineage.close();
        }
    }

    /** The context the stock enumerator assigns through: passes a split on once its parents are read. */
    static final class Gate implements SplitEnumeratorContext<KinesisShardSplit> {
        /** Finished splits whose readers are remembered: far more than a reshard's parents at once. */
        static final int REMEMBERED_FINISHED = 1000;

        private final SplitEnumeratorContext<KinesisShardSplit> context;
        private final ShardLineage lineage;
        /** Splits in the job and not finished, by the subtask that reads them. */
        final Map<String, Integer> reading = new HashMap<>();
        /** Children waiting for a parent, in the order the stock enumerator assigned them. */
        final Map<String, KinesisShardSplit> waiting = new LinkedHashMap<>();
        /**
         * Who finished the last {@link #REMEMBERED_FINISHED} splits, in the order they finished: a
         * child listed after its parents finished (a split while the parent's reader was at its tip)
         * goes to the reader that holds their watermark. A child listed later than that goes where
         * the connector puts it.
         */
        private final Map<String, Integer> finishedBy = new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
                return size() > REMEMBERED_FINISHED;
            }
        };
        /**
         * Readers given a split, or that said they read one, in this enumerator's life: they may have
         * emitted a watermark, and are never a child's reader in a hand-over. At most every subtask.
         */
        final Set<Integer> used = new HashSet<>();

        final HandOvers handOvers;
        /** The connector's periodic shard discovery, to run once more at once; null until it starts. */
        Runnable discovery;

        Gate(SplitEnumeratorContext<KinesisShardSplit> context, ShardLineage lineage) {
            this.context = context;
            this.lineage = lineage;
            this.handOvers = new HandOvers(context);
        }

        @Override
        public void assignSplits(SplitsAssignment<KinesisShardSplit> assignment) {
            Map<Integer, List<KinesisShardSplit>> now = new TreeMap<>();
            Map<Integer, List<String>> holds = new TreeMap<>();
            Set<String> batch = new HashSet<>();
            assignment.assignment().values().forEach(splits -> splits.forEach(s -> batch.add(s.splitId())));
            assignment.assignment().forEach((subtask, splits) -> {
                for (KinesisShardSplit split : splits) {
                    if (waitsForParent(split, batch)) {
                        LOG.info("Shard {} waits until its parents are read: {}", split.getShardId(), parents(split));
                        waiting.put(split.splitId(), split);
                        continue;
                    }
                    Integer finisher = readerOfFinishedParents(split);
                    int to = finisher == null ? subtask : place(split, finisher, holds);
                    now.computeIfAbsent(to, s -> new ArrayList<>()).add(split);
                    reading.put(split.splitId(), to);
                    used.add(to);
                }
            });
            assign(now, holds);
        }

        void finished(int subtaskId, List<String> splitIds) {
            for (String id : splitIds) {
                reading.remove(id);
                finishedBy.remove(id); // re-put: the order is the order they finished
                finishedBy.put(id, subtaskId);
            }
            Map<Integer, List<KinesisShardSplit>> ready = new TreeMap<>();
            Map<Integer, List<String>> holds = new TreeMap<>();
            // by shard id: which child stays with the parents' reader does not depend on listing order
            List<KinesisShardSplit> children = new ArrayList<>(waiting.values());
            children.sort(Comparator.comparing(KinesisShardSplit::splitId));
            for (KinesisShardSplit child : children) {
                if (waitsForParent(child, Set.of())) {
                    continue;
                }
                waiting.remove(child.splitId());
                int subtask = place(child, readerFor(child, subtaskId), holds);
                LOG.info("Assigning shard {} to subtask {}: its parents are read", child.getShardId(), subtask);
                ready.computeIfAbsent(subtask, s -> new ArrayList<>()).add(child);
                reading.put(child.splitId(), subtask);
                used.add(subtask);
            }
            assign(ready, holds);
        }

        /**
         * The parents' readers are told to hold before anything is assigned to them (a new split
         * would otherwise end their hold), the successors' readers to take over once assigned.
         */
        private void assign(Map<Integer, List<KinesisShardSplit>> splits, Map<Integer, List<String>> holds) {
            holds.forEach((subtask, parents) ->
                    context.sendEventToSourceReader(subtask, new WatermarkHandOver.Hold(List.copyOf(parents))));
            if (!splits.isEmpty()) {
                context.assignSplits(new SplitsAssignment<>(splits));
            }
            handOvers.assigned(splits);
        }

        /**
         * Where a child whose parents' reader {@code finisher} holds their watermark goes: the
         * reader with the fewest unfinished splits, among that one and the readers that have had no
         * split in this enumerator's life (ties: the finisher, then the lowest subtask). Those alone
         * are safe: a reader that has read emitted a watermark, which may be ahead of the child's
         * readings and cannot go back; one that never did takes the parents' watermark over
         * ({@link HandOvers}). Any other reader is never given the child, however idle.
         */
        private int place(KinesisShardSplit child, int finisher, Map<Integer, List<String>> holds) {
            if (load(finisher) == 0) {
                return finisher;
            }
            for (int subtask : new TreeSet<>(context.registeredReaders().keySet())) {
                if (!used.contains(subtask)) {
                    used.add(subtask);
                    handOvers.handOver(child, parents(child), subtask, finishedBy, holds);
                    return subtask;
                }
            }
            return finisher;
        }

        /** Unfinished splits of the subtask: a fresh reader's is 0, as is a parent's reader's that read only it. */
        private long load(int subtask) {
            return reading.values().stream().filter(s -> s == subtask).count();
        }

        /**
         * For a child whose parents finished before it was listed: the reader {@link #readerFor}
         * picks among the readers that finished them, which still hold the last parent's watermark
         * until it comes (see {@code SplitEventTime}). Given to another reader, whose watermark may
         * be hours ahead of the child's first readings, the child's readings would go late once the
         * held watermark went idle. Null when no parent's reader is known or registered: the
         * connector's choice stands.
         */
        private Integer readerOfFinishedParents(KinesisShardSplit child) {
            List<String> parents = parents(child);
            Integer lastFinisher = null;
            for (Map.Entry<String, Integer> finished : finishedBy.entrySet()) {
                if (parents.contains(finished.getKey())) {
                    lastFinisher = finished.getValue();
                }
            }
            if (lastFinisher == null) {
                return null;
            }
            int subtask = readerFor(child, lastFinisher);
            return context.registeredReaders().containsKey(subtask) ? subtask : null;
        }

        /** Whether a parent is read, waits, or is assigned in the same {@code batch}. */
        private boolean waitsForParent(KinesisShardSplit split, Set<String> batch) {
            for (String parent : parents(split)) {
                if (reading.containsKey(parent) || waiting.containsKey(parent) || batch.contains(parent)) {
                    return true;
                }
            }
            return false;
        }

        /** A parent's reader that reads nothing else, else the reader that finished the last parent. */
        private int readerFor(KinesisShardSplit child, int finisher) {
            for (String parent : parents(child)) {
                Integer subtask = finishedBy.get(parent);
                if (subtask != null
                        && context.registeredReaders().containsKey(subtask)
                        && !reading.containsValue(subtask)) {
                    return subtask;
                }
            }
            return finisher;
        }

        private List<String> parents(KinesisShardSplit split) {
            return lineage.parents(split.getStreamArn(), split.getShardId());
        }

        @Override
        public SplitEnumeratorMetricGroup metricGroup() {
            return context.metricGroup();
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
            context.sendEventToSourceReader(subtaskId, event);
        }

        @Override
        public int currentParallelism() {
            return context.currentParallelism();
        }

        @Override
        public Map<Integer, ReaderInfo> registeredReaders() {
            return context.registeredReaders();
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            context.signalNoMoreSplits(subtask);
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
            context.callAsync(callable, handler);
        }

        /** The connector schedules one periodic call, its shard discovery: kept to be run at once too. */
        @Override
        public <T> void callAsync(
                Callable<T> callable, BiConsumer<T, Throwable> handler, long initialDelay, long period) {
            if (discovery == null) {
                discovery = () -> context.callAsync(callable, handler);
            }
            context.callAsync(callable, handler, initialDelay, period);
        }

        @Override
        public void runInCoordinatorThread(Runnable runnable) {
            context.runInCoordinatorThread(runnable);
        }
    }
}
