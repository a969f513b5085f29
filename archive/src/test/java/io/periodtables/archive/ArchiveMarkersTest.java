package io.periodtables.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.PeriodLength;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.file.sink.FileSinkCommittable;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.CommittableSummary;
import org.apache.flink.streaming.api.connector.sink2.CommittableWithLineage;
import org.apache.flink.streaming.api.functions.sink.filesystem.InProgressFileWriter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The marker operator on a local folder that already holds committed files of another run: the
 * marker waits for every file this run commits to the period, then compacts the whole folder
 * (theirs and ours, into one file here) and counts it.
 * Commits reach the operator as the file sink's committer reports them (a summary, then one
 * message per committed file).
 */
class ArchiveMarkersTest {

    private static final PeriodCalendar HOURS = new PeriodCalendar(PeriodLength.parse("PT1H"), ZoneOffset.UTC);
    private static final Period PERIOD = HOURS.periodOf(Instant.parse("2026-11-22T13:20:00Z"));
    private static final Duration LATENESS = Duration.ofMinutes(5);
    private static final String PARTITION = ArchivePartitions.period(PERIOD);

    @TempDir
    java.nio.file.Path root;

    @Test
    void aRestartOnTheSamePathIsMarkedOnlyOnceItsOwnFilesAreCommitted() throws Exception {
        // A previous run without this run's state committed the same three readings.
        writeFile("part-previous-0.parquet", rows(0, 3));

        ArchiveMarkers markers = markers();
        try (var harness = harness(markers)) {
            harness.open();
            harness.processElement2(new StreamRecord<>(new PeriodRows(PERIOD.startMillis(), 3)));
            harness.processWatermark2(sealing());
            markers.awaitChecks();

            assertThat(reader().isArchived(PERIOD))
                    .as("sealed, but none of this run's 3 rows is committed yet")
                    .isFalse();

            commit(harness, 1, "part-this-0.parquet", rows(0, 3));
            markers.awaitChecks();

            assertThat(reader().manifest(PERIOD)).contains(folderAsItIs(3));
            assertThat(reader().manifest(PERIOD)).contains(new PeriodManifest(PERIOD.label(), 6, 3, 1));
        }
    }

    @Test
    void aRestoreFromAnOlderCheckpointWaitsForTheFilesItWritesAgain() throws Exception {
        OperatorSubtaskState older;
        try (var first = harness(markers())) {
            first.open();
            commit(first, 1, "part-first-0.parquet", rows(0, 2));
            older = first.snapshot(2, 2);
            // Committed after checkpoint 2: the checkpoint's own file (its committer re-commits it on
            // a restore), then one of checkpoint 3, which a restore from checkpoint 2 writes again.
            commit(first, 2, "part-first-1.parquet", rows(2, 4));
            commit(first, 3, "part-first-2.parquet", rows(4, 6));
        }

        ArchiveMarkers markers = markers();
        try (var restored = harness(markers)) {
            restored.initializeState(older);
            restored.open();
            report(restored, 2, "part-first-1.parquet");
            restored.processElement2(new StreamRecord<>(new PeriodRows(PERIOD.startMillis(), 6)));
            restored.processWatermark2(sealing());
            markers.awaitChecks();

            assertThat(reader().isArchived(PERIOD))
                    .as("sealed, 4 of this run's 6 rows committed (the folder holds 6 rows)")
                    .isFalse();

            commit(restored, 3, "part-second-0.parquet", rows(4, 6));
            markers.awaitChecks();

            assertThat(reader().manifest(PERIOD)).contains(folderAsItIs(6));
            assertThat(reader().manifest(PERIOD)).contains(new PeriodManifest(PERIOD.label(), 8, 6, 1));
        }
    }

    @Test
    void theFilesCommittedAtTheEndOfTheInputAreCountedAsThisRunsLast() throws Exception {
        writeFile("part-previous-0.parquet", rows(0, 3));

        ArchiveMarkers markers = markers();
        try (var harness = harness(markers)) {
            harness.open();
            harness.processElement2(new StreamRecord<>(new PeriodRows(PERIOD.startMillis(), 3)));
            harness.processWatermark2(sealing());
            harness.endInput1();
            harness.endInput2();
            markers.awaitChecks();

            assertThat(reader().isArchived(PERIOD))
                    .as("the input ended before this run's file was committed")
                    .isFalse();

            // The final checkpoint completes: the committer commits the last file and can no longer name it.
            writeFile("part-this-0.parquet", rows(0, 3));
            harness.notifyOfCompletedCheckpoint(1);

            assertThat(reader().manifest(PERIOD)).contains(folderAsItIs(3));
            assertThat(reader().manifest(PERIOD)).contains(new PeriodManifest(PERIOD.label(), 6, 3, 1));
        }
    }

    @Test
    void aSavepointOfABuildThatDidNotNameFilesCountsTheFilesCommittedBeforeTheRestore() throws Exception {
        // The earlier build kept the counts and the progress, not the names of the files it committed.
        OperatorSubtaskState earlierBuild;
        try (var earlier = new OneInputStreamOperatorTestHarness<>(new EarlierBuildState())) {
            earlier.open();
            earlierBuild = earlier.snapshot(2, 2);
        }
        writeFile("part-earlier-0.parquet", rows(0, 2));
        writeFile("part-earlier-1.parquet", rows(2, 4));

        ArchiveMarkers markers = markers();
        try (var restored = harness(markers)) {
            restored.initializeState(earlierBuild);
            restored.open();
            restored.processElement2(new StreamRecord<>(new PeriodRows(PERIOD.startMillis(), 4)));
            restored.processWatermark2(sealing());
            markers.awaitChecks();

            assertThat(reader().manifest(PERIOD)).contains(folderAsItIs(4));
            assertThat(reader().manifest(PERIOD)).contains(new PeriodManifest(PERIOD.label(), 4, 4, 1));
        }
    }

    @Test
    void aRestoreOfThisBuildBeforeAnyCommitStillWaitsForItsOwnFiles() throws Exception {
        OperatorSubtaskState beforeAnyCommit;
        try (var first = harness(markers())) {
            first.open();
            beforeAnyCommit = first.snapshot(1, 1);
        }
        writeFile("part-previous-0.parquet", rows(0, 3));

        ArchiveMarkers markers = markers();
        try (var restored = harness(markers)) {
            restored.initializeState(beforeAnyCommit);
            restored.open();
            restored.processElement2(new StreamRecord<>(new PeriodRows(PERIOD.startMillis(), 3)));
            restored.processWatermark2(sealing());
            markers.awaitChecks();

            assertThat(reader().isArchived(PERIOD))
                    .as("sealed, but none of this run's 3 rows is committed yet")
                    .isFalse();
        }
    }

    private ArchiveMarkers markers() {
        return new ArchiveMarkers(archivePath(), HOURS, LATENESS);
    }

    private static TwoInputStreamOperatorTestHarness<CommittableMessage<FileSinkCommittable>, PeriodRows, Void> harness(
            ArchiveMarkers markers) throws Exception {
        return new TwoInputStreamOperatorTestHarness<>(markers);
    }

    private static Watermark sealing() {
        return new Watermark(PERIOD.endMillis() + LATENESS.toMillis());
    }

    /** The file sink's committer commits one file of {@code rows} at checkpoint {@code checkpoint} and reports it. */
    private void commit(
            TwoInputStreamOperatorTestHarness<CommittableMessage<FileSinkCommittable>, PeriodRows, Void> harness,
            long checkpoint,
            String name,
            List<ArchiveRow> rows)
            throws Exception {
        writeFile(name, rows);
        report(harness, checkpoint, name);
    }

    private void report(
            TwoInputStreamOperatorTestHarness<CommittableMessage<FileSinkCommittable>, PeriodRows, Void> harness,
            long checkpoint,
            String name)
            throws Exception {
        harness.processElement1(new StreamRecord<>(new CommittableSummary<>(0, 1, checkpoint, 1, 0, 0)));
        Path file = new Path(ArchivePartitions.folder(archivePath(), PARTITION), name);
        harness.processElement1(new StreamRecord<>(new CommittableWithLineage<>(
                new FileSinkCommittable(PARTITION, new CommittedFile(file)), checkpoint, 0)));
    }

    /** The manifest of what the folder holds now, read file by file. */
    private PeriodManifest folderAsItIs(long expectedDistinct) throws IOException {
        List<ArchiveRow> all = new ArrayList<>();
        reader().rows(PARTITION, all::add);
        Set<String> keys = new HashSet<>();
        all.forEach(row -> keys.add(row.pk() + '\u0000' + row.sk()));
        assertThat(keys).hasSize((int) expectedDistinct);
        return new PeriodManifest(PERIOD.label(), all.size(), keys.size(), reader().files(PARTITION));
    }

    private ArchiveReader reader() {
        return new ArchiveReader(archivePath());
    }

    private static List<ArchiveRow> rows(int from, int to) {
        List<ArchiveRow> rows = new ArrayList<>();
        for (int i = from; i < to; i++) {
            rows.add(new ArchiveRow(
                    PARTITION, "dev-" + i, PERIOD.startMillis() + i, null, "dev-" + i, "s" + i, null, "{\"v\":1}"));
        }
        return rows;
    }

    private String archivePath() {
        return root.toUri().toString();
    }

    private void writeFile(String name, List<ArchiveRow> rows) throws IOException {
        Files.createDirectories(root.resolve(PARTITION));
        Path file = new Path(ArchivePartitions.folder(archivePath(), PARTITION), name);
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(file, FileSystem.WriteMode.NO_OVERWRITE)) {
            BulkWriter<ArchiveRow> writer =
                    ArchiveParquet.writerFactory(List.of()).create(out);
            for (ArchiveRow row : rows) {
                writer.addElement(row);
            }
            writer.finish();
        }
    }

    /** The marker operator's state as a build before the file names had it: counts and progress only. */
    private static final class EarlierBuildState extends AbstractStreamOperator<Void>
            implements OneInputStreamOperator<Void, Void> {
        @Override
        public void initializeState(StateInitializationContext context) throws Exception {
            super.initializeState(context);
            context.getOperatorStateStore()
                    .getListState(
                            new ListStateDescriptor<>("archive-marker-rows", Types.TUPLE(Types.LONG, Types.LONG)));
            context.getOperatorStateStore()
                    .getListState(new ListStateDescriptor<>("archive-marker-progress", Types.LONG))
                    .update(List.of(PERIOD.startMillis(), PERIOD.startMillis() + 1));
        }

        @Override
        public void processElement(StreamRecord<Void> element) {}
    }

    /** A part file as the committer reports it: the path it was committed to. */
    private record CommittedFile(Path getPath) implements InProgressFileWriter.PendingFileRecoverable {
        @Override
        public long getSize() {
            return -1;
        }
    }
}
