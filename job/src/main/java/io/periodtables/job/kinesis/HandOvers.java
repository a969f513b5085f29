package io.periodtables.job.kinesis;

import io.periodtables.job.time.WatermarkHandOver;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.connector.kinesis.source.split.KinesisShardSplit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watermark hand-overs of {@link ParentsFirstEnumerator} under way: a finished parent whose
 * reader keeps holding its watermark while a child is read by a reader that never had a split, until
 * that reader holds it (the events of {@link WatermarkHandOver}, in their order).
 *
 * <p>Without it, the parent's reader would let go at idleness at the latest, and the child's
 * reader, idle until then, would count for the job's watermark only once its own watermark passed
 * the job's: the child's first readings could go late. With it, the parent's reader holds until the
 * child's reader has emitted the parent's end and a checkpoint after it completed, or, as a
 * fallback (a reader restarted, the child's reader failed before it took over), until
 * {@code watermark.idleness} passes.
 *
 * <p>Not checkpointed: a restore restarts every reader, and no reader then holds anything. Bounded:
 * a reader takes over at most once in the enumerator's life (it has had a split since), so there are
 * at most two parents per source subtask here.
 */
final class HandOvers {
    private static final Logger LOG = LoggerFactory.getLogger(HandOvers.class);

    private final SplitEnumeratorContext<KinesisShardSplit> context;
    /** By parent split id. */
    private final Map<String, Parent> parents = new LinkedHashMap<>();

    HandOvers(SplitEnumeratorContext<KinesisShardSplit> context) {
        this.context = context;
    }

    /** A finished parent: its reader, the watermark it holds (null until it says), its children elsewhere by reader. */
    private static final class Parent {
        final int finisher;
        Long watermark;
        final Map<String, Integer> children = new LinkedHashMap<>();

        Parent(int finisher) {
            this.finisher = finisher;
        }
    }

    /**
     * {@code child} goes to {@code reader}, which has never had a split: each of its parents whose
     * reader is known holds until the reader takes over; {@code holds} gets the parents whose
     * readers must be told before anything is assigned.
     */
    void handOver(
            KinesisShardSplit child,
            List<String> parentIds,
            int reader,
            Map<String, Integer> finishedBy,
            Map<Integer, List<String>> holds) {
        for (String id : parentIds) {
            Integer finisher = finishedBy.get(id);
            if (finisher == null || finisher == reader) {
                continue;
            }
            Parent parent = parents.get(id);
            if (parent == null) {
                parent = new Parent(finisher);
                parents.put(id, parent);
                holds.computeIfAbsent(finisher, s -> new ArrayList<>()).add(id);
            }
            parent.children.put(child.splitId(), reader);
            LOG.info(
                    "Shard {} goes to subtask {}, which has had no shard: subtask {} holds the watermark of its"
                            + " parent {} until it takes over",
                    child.getShardId(),
                    reader,
                    finisher,
                    id);
        }
    }

    /**
     * After an assignment: a child given to its parent's own reader (again, after its reader failed)
     * ends that parent's hand-over there; one given to a reader that takes over is told the
     * watermark, when the parent's reader has said it.
     */
    void assigned(Map<Integer, List<KinesisShardSplit>> splits) {
        Map<Integer, List<String>> releases = new TreeMap<>();
        splits.forEach((to, assigned) -> {
            int subtask = to;
            for (KinesisShardSplit split : assigned) {
                for (Iterator<Map.Entry<String, Parent>> it = parents.entrySet().iterator(); it.hasNext(); ) {
                    Map.Entry<String, Parent> entry = it.next();
                    Parent parent = entry.getValue();
                    Integer reader = parent.children.get(split.splitId());
                    if (reader == null) {
                        continue;
                    }
                    if (parent.finisher == subtask) {
                        parent.children.remove(split.splitId());
                        if (parent.children.isEmpty()) {
                            it.remove();
                            releases.computeIfAbsent(subtask, s -> new ArrayList<>())
                                    .add(entry.getKey());
                        }
                    } else if (reader == subtask && parent.watermark != null) {
                        takeOver(split.splitId(), subtask, parent.watermark);
                    }
                }
            }
        });
        release(releases);
    }

    /** The parents' reader says what it holds: the children's readers take that watermark over. */
    void held(int subtask, WatermarkHandOver.Held held) {
        for (String id : held.gone()) {
            Parent parent = parents.get(id);
            if (parent != null && parent.finisher == subtask) {
                // restarted, or given a new split before it was told: nothing held to hand over
                LOG.warn(
                        "Subtask {} no longer holds the watermark of shard {}: its children's readers start"
                                + " without it",
                        subtask,
                        id);
                parents.remove(id);
            }
        }
        held.watermarks().forEach((id, watermark) -> {
            Parent parent = parents.get(id);
            if (parent != null && parent.finisher == subtask) {
                parent.watermark = watermark;
                parent.children.forEach((child, reader) -> takeOver(child, reader, watermark));
            }
        });
    }

    /** A child's reader took over: a parent all of whose children elsewhere did is let go. */
    void tookOver(int subtask, WatermarkHandOver.TookOver tookOver) {
        Map<Integer, List<String>> releases = new TreeMap<>();
        for (Iterator<Map.Entry<String, Parent>> it = parents.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Parent> entry = it.next();
            Parent parent = entry.getValue();
            Integer reader = parent.children.get(tookOver.splitId());
            if (reader != null
                    && reader == subtask
                    && parent.watermark != null
                    && parent.watermark <= tookOver.watermark()) {
                parent.children.remove(tookOver.splitId());
                if (parent.children.isEmpty()) {
                    it.remove();
                    releases.computeIfAbsent(parent.finisher, s -> new ArrayList<>())
                            .add(entry.getKey());
                }
            }
        }
        release(releases);
    }

    private void takeOver(String child, int reader, long watermark) {
        context.sendEventToSourceReader(reader, new WatermarkHandOver.TakeOver(child, watermark));
    }

    private void release(Map<Integer, List<String>> releases) {
        releases.forEach((subtask, ids) -> {
            LOG.info(
                    "Subtask {} lets go of the watermark of shards {}: their children's readers hold it", subtask, ids);
            context.sendEventToSourceReader(subtask, new WatermarkHandOver.Release(List.copyOf(ids)));
        });
    }
}
