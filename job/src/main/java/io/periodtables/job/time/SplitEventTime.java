package io.periodtables.job.time;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.SinkRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
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
 * so the window operator never judges late what the split judged on time. Everything else is
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
        ShardLateness lateness =
                new ShardLateness(config, capAtWallClock ? ReadingWatermarks.WallClock.system() : null);
        return new Reader<>(source.createReader(readerContext), lateness);
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

    /** The wrapped reader; before each poll, creates the outputs of splits assigned since the last one. */
    private static final class Reader<S extends SourceSplit> implements SourceReader<SinkRecord, S> {
        private final SourceReader<SinkRecord, S> reader;
        private final ShardLateness lateness;
        private final List<String> assigned = new ArrayList<>();
        private JudgingOutput judging;

        Reader(SourceReader<SinkRecord, S> reader, ShardLateness lateness) {
            this.reader = reader;
            this.lateness = lateness;
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
            if (!assigned.isEmpty()) {
                // Idempotent: the wrapped reader later gets the same output for the split.
                assigned.forEach(judging::createOutputForSplit);
                assigned.clear();
            }
            return reader.pollNext(judging);
        }

        @Override
        public List<S> snapshotState(long checkpointId) {
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
            reader.handleSourceEvents(sourceEvent);
        }

        @Override
        public void pauseOrResumeSplits(Collection<String> splitsToPause, Collection<String> splitsToResume) {
            reader.pauseOrResumeSplits(splitsToPause, splitsToResume);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
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

        SplitOutput(String split, SourceOutput<SinkRecord> output, ShardLateness lateness) {
            this.split = split;
            this.output = output;
            this.lateness = lateness;
        }

        @Override
        public void collect(SinkRecord record) {
            output.collect(lateness.judge(split, record));
        }

        @Override
        public void collect(SinkRecord record, long timestamp) {
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
     * shard's children come to the reader that finished it, see {@code ParentsFirstEnumerator}) or
     * its per-split idleness ({@code watermark.idleness}) marks it idle.
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
     * The held outputs are at most the splits this reader finished since it was last given one.
     */
    private static final class JudgingOutput extends SplitOutput implements ReaderOutput<SinkRecord> {
        private final ReaderOutput<SinkRecord> output;
        private final Map<String, SourceOutput<SinkRecord>> splits = new HashMap<>();
        /** Finished splits whose outputs still hold the reader's watermark, until a new split or idleness. */
        private final Set<String> finished = new LinkedHashSet<>();

        JudgingOutput(ReaderOutput<SinkRecord> output, ShardLateness lateness) {
            super(MAIN, output, lateness);
            this.output = output;
        }

        @Override
        public SourceOutput<SinkRecord> createOutputForSplit(String splitId) {
            SourceOutput<SinkRecord> known = splits.get(splitId);
            if (known != null) {
                return known;
            }
            SourceOutput<SinkRecord> created = new SplitOutput(splitId, output.createOutputForSplit(splitId), lateness);
            splits.put(splitId, created);
            // The new split holds the reader's watermark from now on (from the finished splits' end,
            // until its first readings move it).
            finished.remove(splitId);
            finished.forEach(output::releaseOutputForSplit);
            finished.clear();
            return created;
        }

        @Override
        public void releaseOutputForSplit(String splitId) {
            if (splits.remove(splitId) != null) {
                finished.add(splitId);
            }
        }
    }
}
