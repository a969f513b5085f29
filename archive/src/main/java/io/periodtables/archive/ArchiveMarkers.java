package io.periodtables.archive;

import io.periodtables.core.period.EndOfInput;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each period's {@code _SUCCESS} marker ({@link PeriodManifest}), at parallelism 1, after
 * the file sink's committer: its first input is what the committer reports after each commit,
 * its second the per-subtask row counts of {@link ToArchiveRows}.
 *
 * <p>A period is sealed when the second input's watermark has passed its end plus the allowed
 * lateness: every writer subtask has then sent its count, and their sum is the number of rows
 * the file sink commits for the period. After every commit a {@link PeriodMarker} check, on a
 * background thread ({@link MarkerChecks}), compares the rows of this run's committed files ({@link ThisRunsFiles})
 * with that sum and, once
 * they match, compacts the folder and writes the marker counting the whole folder: another run's
 * files there are committed already and never stand in for this run's. Periods between the first one with rows and the
 * last one seen that had no row get a marker too (0 rows, 0 files):
 * their tables exist and retention waits for them. A marker is written once and never replaced,
 * so a replay or a restore cannot change it; sealed periods without a marker are in the
 * checkpoint and are checked again after a restore.
 *
 * <p>The watermark that ends the input seals nothing: a drained stop is not the end of a period,
 * and a run resumed from its savepoint marks the periods it did not close. At the end of the
 * input the committer commits its last files when the final checkpoint completes, and reports
 * nothing downstream any more ({@link ThisRunsFiles} says how those files are told apart). This
 * operator ends after the committer
 * (it is downstream of it), so the completion of its own final checkpoint is also the
 * committer's: it waits there (up to {@link #FINAL_WAIT}) for the markers of the periods already sealed.
 */
@Internal
final class ArchiveMarkers extends AbstractStreamOperator<Void>
        implements TwoInputStreamOperator<CommittableMessage<FileSinkCommittable>, PeriodRows, Void>,
                BoundedMultiInput {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ArchiveMarkers.class);

    static final Duration FINAL_WAIT = Duration.ofMinutes(1);

    private final String archivePath;
    private final PeriodCalendar calendar;
    private final Duration allowedLateness;

    private transient ListState<Tuple2<Long, Long>> rowsState;
    private transient ListState<Long> progressState;
    private transient ThisRunsFiles thisRunsFiles;
    /** Rows per period start, summed over the writer subtasks, until the period's marker is written. */
    private transient TreeMap<Long, Long> rows;
    /** Sealed periods (by start) whose marker is not written yet. */
    private transient TreeMap<Long, Period> sealed;
    /** The start of the first period not sealed yet; {@code Long.MIN_VALUE} before the first rows. */
    private transient long frontier;
    /** The last watermark that was not the end of input. */
    private transient long lastWatermark;

    private transient Set<Integer> endedInputs;
    private transient MarkerChecks checks;

    ArchiveMarkers(String archivePath, PeriodCalendar calendar, Duration allowedLateness) {
        this.archivePath = archivePath;
        this.calendar = calendar;
        this.allowedLateness = allowedLateness;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        rowsState = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>("archive-marker-rows", Types.TUPLE(Types.LONG, Types.LONG)));
        progressState = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>("archive-marker-progress", Types.LONG));
        thisRunsFiles = new ThisRunsFiles(archivePath, context.getOperatorStateStore(), context.isRestored());
        rows = new TreeMap<>();
        sealed = new TreeMap<>();
        for (Tuple2<Long, Long> entry : rowsState.get()) {
            rows.merge(entry.f0, entry.f1, Long::sum);
        }
        List<Long> progress = new ArrayList<>();
        progressState.get().forEach(progress::add);
        frontier = progress.isEmpty() ? Long.MIN_VALUE : progress.get(0);
        lastWatermark = progress.isEmpty() ? Long.MIN_VALUE : progress.get(1);
        for (int i = 2; i < progress.size(); i++) {
            sealed.put(progress.get(i), calendar.periodOf(progress.get(i)));
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        checks = new MarkerChecks(
                archivePath,
                getContainingTask()
                        .getEnvironment()
                        .getIOManager()
                        .getSpillingDirectories()[0]
                        .toPath());
        endedInputs = new HashSet<>();
        checkSealed(); // periods restored as sealed
    }

    @Override
    public void processElement1(StreamRecord<CommittableMessage<FileSinkCommittable>> element) {
        // Sent per checkpoint and committer subtask once that checkpoint's files are committed.
        if (thisRunsFiles.add(element.getValue())) {
            checkSealed();
        }
    }

    @Override
    public void processElement2(StreamRecord<PeriodRows> element) {
        rows.merge(element.getValue().periodStartMillis(), element.getValue().rows(), Long::sum);
    }

    @Override
    public void processWatermark1(Watermark mark) {
        // The committer's watermark says nothing about commits; the second input's seals periods.
    }

    @Override
    public void processWatermark2(Watermark mark) throws IOException {
        long watermark = mark.getTimestamp();
        if (EndOfInput.is(watermark)) {
            // The end of the input (a drained stop, a bounded source) seals no period: see ToArchiveRows.
            return;
        }
        lastWatermark = Math.max(lastWatermark, watermark);
        if (frontier == Long.MIN_VALUE) {
            if (rows.isEmpty()) {
                return; // no period had rows yet: nothing to mark
            }
            frontier = rows.firstKey();
        }
        long horizon = Math.max(lastWatermark, rows.isEmpty() ? Long.MIN_VALUE : rows.lastKey());
        Period period = calendar.periodOf(frontier);
        boolean sealedAny = false;
        while (period.closedBy(watermark, allowedLateness) && period.startMillis() <= horizon) {
            sealed.put(period.startMillis(), period);
            thisRunsFiles.sealed(period);
            sealedAny = true;
            period = calendar.next(period);
        }
        frontier = period.startMillis();
        if (sealedAny) {
            checkSealed();
        }
    }

    @Override
    public void endInput(int inputId) throws IOException {
        endedInputs.add(inputId);
        if (inputId == 1) {
            thisRunsFiles.commitsEnded(sealed.values());
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (endedInputs.size() == 2) {
            awaitLastMarkers();
        }
    }

    /** The final checkpoint of a bounded input: the committer commits its last files now, in its own task. */
    private void awaitLastMarkers() throws Exception {
        long deadline = System.nanoTime() + FINAL_WAIT.toNanos();
        while (!sealed.isEmpty() && System.nanoTime() < deadline) {
            awaitChecks();
            checkSealed();
            if (!sealed.isEmpty()) {
                Thread.sleep(50);
            }
        }
        if (!sealed.isEmpty()) {
            LOG.warn(
                    "The input ended but periods {} are not archived: their files are not all committed",
                    sealed.values().stream().map(Period::label).toList());
        }
    }

    /** Waits for the checks running now and applies what they found. */
    @VisibleForTesting
    void awaitChecks() throws InterruptedException {
        checks.awaitRunning();
        applyFinished();
    }

    /** Applies the finished checks and starts one for every sealed period that has none running. */
    private void checkSealed() {
        applyFinished();
        for (Period period : sealed.values()) {
            if (!checks.running(period.startMillis())) {
                checks.start(period, rows.getOrDefault(period.startMillis(), 0L), thisRunsFiles.of(period));
            }
        }
    }

    /** Forgets the periods whose marker a finished check found or wrote. */
    private void applyFinished() {
        for (long periodStart : checks.finished()) {
            thisRunsFiles.marked(sealed.remove(periodStart));
            rows.remove(periodStart);
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        applyFinished();
        List<Tuple2<Long, Long>> entries = new ArrayList<>();
        for (Map.Entry<Long, Long> e : rows.entrySet()) {
            entries.add(Tuple2.of(e.getKey(), e.getValue()));
        }
        rowsState.update(entries);
        List<Long> progress = new ArrayList<>(List.of(frontier, lastWatermark));
        progress.addAll(sealed.keySet());
        progressState.update(progress);
        thisRunsFiles.snapshot();
    }

    @Override
    public void close() throws Exception {
        if (checks != null) {
            checks.close();
        }
        super.close();
    }
}
