package io.periodtables.job.time;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.SinkRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongUnaryOperator;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The job's source, as event time needs it: wraps the input source (Kinesis, the fleet, a test's)
 * and does two things per split (Kinesis shard) that Flink's readers do not.
 *
 * <ul>
 *   <li><b>Lateness is judged per split</b> ({@link ShardLateness}): every parsed reading passes
 *       the split's own output, which turns it into a late record when the readings before it
 *       in that split have moved that split's watermark past its period's grace.
 *   <li><b>A split holds the watermark from the moment it is assigned</b>, not from its first
 *       record. Flink's {@code SourceReaderBase} creates a split's watermark output lazily, with
 *       the split's first records; when one subtask reads two shards from TRIM_HORIZON, the fast
 *       shard's first fetch would carry the job's watermark days ahead before the slow shard's
 *       first fetch, and the window operator would find the slow shard's readings late. Per-split
 *       idleness still releases a shard that stays empty.
 * </ul>
 *
 * Together they make the job's watermark (the minimum over splits) never pass a split's own,
 * so the window operator never judges late what the split judged on time. A finished split's
 * watermark is held until its successor holds it, on this reader or, through the enumerator's
 * {@link WatermarkHandOver}, on another. Everything else is
 * the wrapped source's — enumerator, splits, state — so its savepoints restore into this one.
 */
@Internal
public final class SplitEventTime<S extends SourceSplit, E> implements Source<SinkRecord, S, E> {
    private static final long serialVersionUID = 1L;

    private final Source<SinkRecord, S, E> source;
    private final PeriodTablesConfig config;
    private final boolean capAtWallClock;

    public SplitEventTime(Source<SinkRecord, S, E> source, PeriodTablesConfig config, boolean capAtWallClock) {
        this.source = source;
        this.config = config;
        this.capAtWallClock = capAtWallClock;
    }

    @Override
    public Boundedness getBoundedness() {
        return source.getBoundedness();
    }

    @Override
    public SourceReader<SinkRecord, S> createReader(SourceReaderContext readerContext) throws Exception {
        ReadingWatermarks.WallClock wallClock = capAtWallClock ? ReadingWatermarks.WallClock.system() : null;
        ShardLateness lateness = new ShardLateness(config, wallClock);
        Duration outOfOrderness = config.get(ConfigKeys.OUT_OF_ORDERNESS);
        long granularity = ReadingWatermarks.granularity(config.get(ConfigKeys.ALLOWED_LATENESS), outOfOrderness);
        LongUnaryOperator watermarkOf =
                newest -> ReadingWatermarks.watermark(newest, outOfOrderness.toMillis(), granularity, wallClock);
        return new Reader<>(source.createReader(readerContext), lateness, readerContext, watermarkOf);
    }

    @Override
    public SplitEnumerator<S, E> createEnumerator(SplitEnumeratorContext<S> enumContext) throws Exception {
        return source.createEnumerator(enumContext);
    }

    @Override
    public SplitEnumerator<S, E> restoreEnumerator(SplitEnumeratorContext<S> enumContext, E checkpoint)
            throws Exception {
        return source.restoreEnumerator(enumContext, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<S> getSplitSerializer() {
        return source.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<E> getEnumeratorCheckpointSerializer() {
        return source.getEnumeratorCheckpointSerializer();
    }

    /**
     * The wrapped reader; before each poll, creates the outputs of splits assigned since the last
     * one. Answers the enumerator's {@link WatermarkHandOver} events: the only state they add is
     * the successors whose watermark waits for a checkpoint, at most the splits this reader was
     * told to take over since its last completed checkpoint.
     */
    private static final class Reader<S extends SourceSplit> implements SourceReader<SinkRecord, S> {
        private final SourceReader<SinkRecord, S> reader;
        private final ShardLateness lateness;
        private final SourceReaderContext context;
        /** The watermark a split's output holds after readings up to the given event time. */
        private final LongUnaryOperator watermarkOf;

        private final List<String> assigned = new ArrayList<>();
        /** Hand-over events that came before the first poll, when there is no output yet. */
        private final List<SourceEvent> early = new ArrayList<>();
        /** Successors whose watermark was emitted since the last checkpoint, with that watermark. */
        private final Map<String, Long> tookOver = new LinkedHashMap<>();
        /** Those emitted before each checkpoint's barrier, until it completes. */
        private final NavigableMap<Long, Map<String, Long>> tookOverBefore = new TreeMap<>();

        private JudgingOutput judging;

        Reader(
                SourceReader<SinkRecord, S> reader,
                ShardLateness lateness,
                SourceReaderContext context,
                LongUnaryOperator watermarkOf) {
            this.reader = reader;
            this.lateness = lateness;
            this.context = context;
            this.watermarkOf = watermarkOf;
        }

        @Override
        public void start() {
            reader.start();
        }

        @Override
        public InputStatus pollNext(ReaderOutput<SinkRecord> output) throws Exception {
            if (judging == null || judging.output != output) {
                judging = new JudgingOutput(output, lateness);
            }
            createAssigned();
            if (!early.isEmpty()) {
                List<SourceEvent> events = new ArrayList<>(early);
                early.clear();
                events.forEach(this::handOver);
            }
            return reader.pollNext(judging);
        }

        private void createAssigned() {
            if (!assigned.isEmpty()) {
                // Idempotent: the wrapped reader later gets the same output for the split.
                assigned.forEach(judging::createOutputForSplit);
                assigned.clear();
            }
        }

        private void handOver(SourceEvent event) {
            if (judging == null) {
                early.add(event);
                return;
            }
            // a successor's output (assigned before the event came) holds the reader's watermark first
            createAssigned();
            if (event instanceof WatermarkHandOver.Hold hold) {
                context.sendSourceEventToCoordinator(judging.hold(hold.splitIds(), watermarkOf));
            } else if (event instanceof WatermarkHandOver.TakeOver takeOver) {
                judging.emitWatermark(new Watermark(takeOver.watermark()));
                tookOver.merge(takeOver.splitId(), takeOver.watermark(), Math::max);
            } else if (event instanceof WatermarkHandOver.Release release) {
                judging.release(release.splitIds());
            }
        }

        @Override
        public List<S> snapshotState(long checkpointId) {
            // the barrier of this checkpoint went out after the watermarks emitted so far
            if (!tookOver.isEmpty()) {
                tookOverBefore.put(checkpointId, new LinkedHashMap<>(tookOver));
                tookOver.clear();
            }
            return reader.snapshotState(checkpointId);
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return reader.isAvailable();
        }

        @Override
        public void addSplits(List<S> splits) {
            splits.forEach(split -> assigned.add(split.splitId()));
            reader.addSplits(splits);
        }

        @Override
        public void notifyNoMoreSplits() {
            reader.notifyNoMoreSplits();
        }

        @Override
        public void handleSourceEvents(SourceEvent sourceEvent) {
            if (sourceEvent instanceof WatermarkHandOver.Hold
                    || sourceEvent instanceof WatermarkHandOver.TakeOver
                    || sourceEvent instanceof WatermarkHandOver.Release) {
                handOver(sourceEvent);
            } else {
                reader.handleSourceEvents(sourceEvent);
            }
        }

        @Override
        public void pauseOrResumeSplits(Collection<String> splitsToPause, Collection<String> splitsToResume) {
            reader.pauseOrResumeSplits(splitsToPause, splitsToResume);
        }

        /**
         * Tells the enumerator of the successors whose watermark went out before this checkpoint's
         * barrier: with the checkpoint complete, every operator downstream has taken it in.
         */
        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            NavigableMap<Long, Map<String, Long>> before = tookOverBefore.headMap(checkpointId, true);
            before.values()
                    .forEach(splits -> splits.forEach((split, watermark) ->
                            context.sendSourceEventToCoordinator(new WatermarkHandOver.TookOver(split, watermark))));
            before.clear();
            reader.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            reader.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void close() throws Exception {
            reader.close();
        }
    }

    /** Records emitted by a reader without per-split outputs (the generator's) count as one split. */
    private static final String MAIN = "";

    /** A split's output whose records pass {@link ShardLateness} first, judged as that split's. */
    private static class SplitOutput implements SourceOutput<SinkRecord> {
        private final String split;
        private final SourceOutput<SinkRecord> output;
        final ShardLateness lateness;
        /** The newest event time read from the split: what its watermark follows. */
        long newest = Long.MIN_VALUE;

        SplitOutput(String split, SourceOutput<SinkRecord> output, ShardLateness lateness) {
            this.split = split;
            this.output = output;
            this.lateness = lateness;
        }

        @Override
        public void collect(SinkRecord record) {
            newest = Math.max(newest, ReadingWatermarks.timestampOf(record));
            output.collect(lateness.judge(split, record));
        }

        @Override
        public void collect(SinkRecord record, long timestamp) {
            newest = Math.max(newest, ReadingWatermarks.timestampOf(record));
            output.collect(lateness.judge(split, record), timestamp);
        }

        @Override
        public void emitWatermark(Watermark watermark) {
            output.emitWatermark(watermark);
        }

        @Override
        public void markIdle() {
            output.markIdle();
        }

        @Override
        public void markActive() {
            output.markActive();
        }
    }

    /**
     * The reader's output: its own records as one split's ({@link #MAIN}), each split's through a
     * {@link SplitOutput}. A finished split's watermark output stays registered, holding the
     * reader's watermark at the split's end, until the reader gets a new split (a finished Kinesis
     * shard's child comes to the reader that finished it, see {@code ParentsFirstEnumerator}) or
     * its per-split idleness ({@code watermark.idleness}) marks it idle. One the enumerator asked to
     * keep ({@link WatermarkHandOver.Hold}: its child went to another reader) stays, also through
     * new splits, until {@link WatermarkHandOver.Release} or idleness.
     *
     * <ul>
     *   <li>Released at once, a finished parent would let the reader's watermark jump to the minimum
     *       of its other shards before the children arrive (a coordinator round trip later, up to
     *       the enumerator's 10 s discovery): in a catch-up where the parent is the laggard, the
     *       job's watermark would pass the children's first readings, and they would go late.
     *   <li>Released as the reader's last output, it would leave Flink's per-split watermark
     *       multiplexer with no output at all, which then never reports the reader idle: the
     *       reader's last watermark would hold the job's for good (a subtask whose last shard
     *       closed in a merge).
     * </ul>
     *
     * The held outputs are at most the splits this reader finished since it was last given one, and
     * those kept for a hand-over the enumerator has not released.
     */
    private static final class JudgingOutput extends SplitOutput implements ReaderOutput<SinkRecord> {
        private final ReaderOutput<SinkRecord> output;
        private final Map<String, SplitOutput> splits = new HashMap<>();
        /** Finished splits whose outputs still hold the reader's watermark, until a new split or idleness. */
        private final Map<String, SplitOutput> finished = new LinkedHashMap<>();
        /** Finished splits kept through new splits for a hand-over, until released or idle. */
        private final Set<String> kept = new HashSet<>();

        JudgingOutput(ReaderOutput<SinkRecord> output, ShardLateness lateness) {
            super(MAIN, output, lateness);
            this.output = output;
        }

        @Override
        public SourceOutput<SinkRecord> createOutputForSplit(String splitId) {
            SplitOutput known = splits.get(splitId);
            if (known != null) {
                return known;
            }
            SplitOutput created = new SplitOutput(splitId, output.createOutputForSplit(splitId), lateness);
            splits.put(splitId, created);
            // The new split holds the reader's watermark from now on (from the finished splits' end,
            // until its first readings move it); kept splits hold it for a successor elsewhere.
            finished.remove(splitId);
            kept.remove(splitId);
            for (Iterator<String> held = finished.keySet().iterator(); held.hasNext(); ) {
                String id = held.next();
                if (!kept.contains(id)) {
                    output.releaseOutputForSplit(id);
                    held.remove();
                }
            }
            return created;
        }

        @Override
        public void releaseOutputForSplit(String splitId) {
            SplitOutput ended = splits.remove(splitId);
            if (ended != null) {
                finished.put(splitId, ended);
            }
        }

        /** Keeps these finished splits' outputs; the answer says what each holds, and which are gone. */
        WatermarkHandOver.Held hold(List<String> splitIds, LongUnaryOperator watermarkOf) {
            Map<String, Long> watermarks = new LinkedHashMap<>();
            List<String> gone = new ArrayList<>();
            for (String id : splitIds) {
                SplitOutput held = finished.get(id);
                if (held == null) {
                    gone.add(id);
                } else {
                    kept.add(id);
                    watermarks.put(id, watermarkOf.applyAsLong(held.newest));
                }
            }
            return new WatermarkHandOver.Held(watermarks, gone);
        }

        void release(List<String> splitIds) {
            for (String id : splitIds) {
                if (kept.remove(id) && finished.remove(id) != null) {
                    output.releaseOutputForSplit(id);
                }
            }
        }
    }
}
