package io.periodtables.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.PeriodLength;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Parquet rows written as the file sink writes them, read back, and the marker decided from them. */
class PeriodMarkerTest {

    private static final PeriodCalendar HOURS = new PeriodCalendar(PeriodLength.parse("PT1H"), ZoneOffset.UTC);
    private static final Period PERIOD = HOURS.periodOf(Instant.parse("2026-11-22T13:20:00Z"));

    @TempDir
    java.nio.file.Path root;

    @Test
    void rowsComeBackAsWrittenWithAndWithoutTtl() throws IOException {
        String partition = ArchivePartitions.period(PERIOD);
        List<ArchiveRow> written = List.of(
                new ArchiveRow(
                        partition,
                        "dev-1",
                        Instant.parse("2026-11-22T13:20:00Z").toEpochMilli(),
                        "e-1",
                        "dev-1#0",
                        "2026-11-22T13:20:00.000Z#0000abcd",
                        1795000000L,
                        "{\"t\":21.50,\"tags\":[\"a\",null]}"),
                new ArchiveRow(
                        partition,
                        "dev-2",
                        Instant.parse("2026-11-22T13:21:00Z").toEpochMilli(),
                        null,
                        "dev-2#1",
                        "2026-11-22T13:21:00.000Z#0000abce",
                        null,
                        "{}"));
        writeFile(partition, "part-a-0.parquet", written);

        List<ArchiveRow> read = new ArrayList<>();
        new ArchiveReader(archivePath()).rows(partition, read::add);

        assertThat(read).isEqualTo(written);
        assertThat(read.get(0).item().get("t").n()).isEqualTo("21.50");
        assertThat(read.get(0).item().get("ttl").n()).isEqualTo("1795000000");
        assertThat(read.get(1).item()).containsOnlyKeys("pk", "sk");
    }

    @Test
    void theMarkerWaitsForEveryRowAndCountsDistinctKeys() throws IOException {
        String partition = ArchivePartitions.period(PERIOD);
        writeFile(partition, "part-a-0.parquet", List.of(row("dev-1", "s1"), row("dev-1", "s2"), row("dev-2", "s1")));
        // An in-progress file of the sink (hidden) is not part of the period yet.
        writeFile(partition, ".part-b-0.parquet.inprogress.1234", List.of(row("dev-3", "s1")));

        assertThat(PeriodMarker.markIfComplete(archivePath(), PERIOD, 5, committed(), root))
                .as("3 of 5 rows committed")
                .isFalse();
        assertThat(new ArchiveReader(archivePath()).isArchived(PERIOD)).isFalse();

        writeFile(partition, "part-b-0.parquet", List.of(row("dev-1", "s2"), row("dev-3", "s1")));
        assertThat(PeriodMarker.markIfComplete(archivePath(), PERIOD, 5, committed(), root))
                .isTrue();

        ArchiveReader reader = new ArchiveReader(archivePath());
        assertThat(reader.isArchived(PERIOD)).isTrue();
        assertThat(reader.manifest(PERIOD)).contains(new PeriodManifest(PERIOD.label(), 5, 4, 1));
    }

    @Test
    void theMarkerCountsTheCompactedFileThatReplacesThePartFiles() throws IOException {
        String partition = ArchivePartitions.period(PERIOD);
        List<ArchiveRow> written = new ArrayList<>();
        for (int file = 0; file < 4; file++) {
            List<ArchiveRow> rows = List.of(row("dev-" + file, "s1"), row("dev-" + file, "s2"), row("dev-0", "s1"));
            writeFile(partition, "part-a-" + file + ".parquet", rows);
            written.addAll(rows.stream().sorted(ArchiveParquet.ORDER).toList());
        }

        assertThat(PeriodMarker.markIfComplete(archivePath(), PERIOD, 12, committed(), root))
                .isTrue();

        ArchiveReader reader = new ArchiveReader(archivePath());
        List<ArchiveRow> read = new ArrayList<>();
        reader.rows(partition, read::add);
        assertThat(read).as("the part files' rows, in their order").isEqualTo(written);
        List<FileStatus> files = ArchiveFiles.committed(ArchivePartitions.folder(archivePath(), partition));
        assertThat(files)
                .singleElement()
                .satisfies(file -> assertThat(file.getPath().getName()).startsWith(PeriodCompaction.PREFIX));
        assertThat(reader.manifest(PERIOD)).contains(new PeriodManifest(PERIOD.label(), 12, 8, 1));
        try (var left = Files.list(root.resolve(partition))) {
            assertThat(left.map(f -> f.getFileName().toString()))
                    .as("the part files, the plan and hidden files are gone")
                    .containsExactlyInAnyOrder(
                            ArchivePartitions.MARKER, files.get(0).getPath().getName());
        }
    }

    @Test
    void aFoldersFootersAndDeletesAreRequestedSeveralAtOnce() throws IOException {
        String partition = ArchivePartitions.period(PERIOD);
        int parts = 4 * FileRequests.AT_ONCE;
        for (int file = 0; file < parts; file++) {
            writeFile(partition, "part-a-" + file + ".parquet", List.of(row("dev-" + file, "s1")));
        }
        PeriodMarker.ThisRun thisRun = committed();
        SlowFileSystem.mostInFlightAndReset();

        // as on S3, where each of a day's 10,000 footers and deletes is a round trip
        String slow = SlowFileSystem.SCHEME + "://" + root.toUri().getPath();
        assertThat(PeriodMarker.markIfComplete(slow, PERIOD, parts, thisRun, root))
                .isTrue();

        int[] most = SlowFileSystem.mostInFlightAndReset();
        assertThat(most[0]).as("files opened at once").isBetween(2, FileRequests.AT_ONCE);
        assertThat(most[1]).as("files deleted at once").isBetween(2, FileRequests.AT_ONCE);
        assertThat(new ArchiveReader(archivePath()).manifest(PERIOD))
                .contains(new PeriodManifest(PERIOD.label(), parts, parts, 1));
    }

    @Test
    void aCompactionInterruptedBeforeItsPlanLeavesNoHiddenFilesOnceTheMarkerIsWritten() throws IOException {
        String partition = ArchivePartitions.period(PERIOD);
        writeFile(partition, "part-a-0.parquet", List.of(row("dev-1", "s1")));
        writeFile(partition, "part-b-0.parquet", List.of(row("dev-2", "s1")));
        // What a crash while the compacted file was written leaves (the recoverable writer's hidden file).
        writeFile(
                partition,
                "." + PeriodCompaction.PREFIX + "1234-0.parquet.inprogress.5678",
                List.of(row("dev-1", "s1")));

        assertThat(PeriodMarker.markIfComplete(archivePath(), PERIOD, 2, committed(), root))
                .isTrue();

        try (var left = Files.list(root.resolve(partition))) {
            assertThat(left.map(f -> f.getFileName().toString()))
                    .as("the interrupted compaction's hidden file is gone")
                    .noneMatch(name -> name.startsWith("."));
        }
    }

    @Test
    void aCompactionDecidedBeforeACrashIsFinishedOnceWithoutTheGate() throws IOException {
        String partition = ArchivePartitions.period(PERIOD);
        writeFile(partition, "part-a-0.parquet", List.of(row("dev-1", "s1"), row("dev-1", "s2")));
        writeFile(partition, "part-b-0.parquet", List.of(row("dev-1", "s2"), row("dev-2", "s1")));
        Path folder = ArchivePartitions.folder(archivePath(), partition);
        // The crash: the plan is written, nothing committed yet (the new file is still hidden).
        assertThat(PeriodCompaction.plan(folder, ArchiveFiles.committed(folder)))
                .isTrue();
        assertThat(ArchiveFiles.committed(folder)).hasSize(2);

        // After the restore, this run's state may name files the compaction replaces: the plan decides.
        assertThat(PeriodMarker.markIfComplete(
                        archivePath(), PERIOD, 4, new PeriodMarker.ThisRun(Set.of(), null, Long.MIN_VALUE), root))
                .isTrue();

        assertThat(new ArchiveReader(archivePath()).manifest(PERIOD))
                .contains(new PeriodManifest(PERIOD.label(), 4, 3, 1));
        assertThat(ArchiveFiles.committed(folder)).singleElement();
        assertThat(folder.getFileSystem().exists(new Path(folder, PeriodCompaction.PLAN)))
                .isFalse();
    }

    @Test
    void aMarkerIsNeverReplaced() throws IOException {
        String partition = ArchivePartitions.period(PERIOD);
        writeFile(partition, "part-a-0.parquet", List.of(row("dev-1", "s1")));
        assertThat(PeriodMarker.markIfComplete(archivePath(), PERIOD, 1, committed(), root))
                .isTrue();

        writeFile(partition, "part-c-0.parquet", List.of(row("dev-9", "s9")));
        assertThat(PeriodMarker.markIfComplete(archivePath(), PERIOD, 2, committed(), root))
                .isTrue();

        assertThat(new ArchiveReader(archivePath()).manifest(PERIOD))
                .contains(new PeriodManifest(PERIOD.label(), 1, 1, 1));
    }

    @Test
    void anEmptyPeriodIsArchivedWithNoFiles() throws IOException {
        assertThat(PeriodMarker.markIfComplete(
                        archivePath(), PERIOD, 0, new PeriodMarker.ThisRun(Set.of(), null, Long.MIN_VALUE), root))
                .isTrue();
        assertThat(new ArchiveReader(archivePath()).manifest(PERIOD))
                .contains(new PeriodManifest(PERIOD.label(), 0, 0, 0));
    }

    @Test
    void distinctKeysSpilledToPartitionsEqualAnExactCountInMemory(@TempDir java.nio.file.Path spill)
            throws IOException {
        String partition = ArchivePartitions.period(PERIOD);
        Set<String> exact = new HashSet<>();
        for (int file = 0; file < 5; file++) {
            List<ArchiveRow> rows = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                // Overlapping ranges: every key in two files, some twice within a file too.
                int n = file * 200 + i % 300;
                ArchiveRow row = row("dev-" + n % 7, "s" + n);
                rows.add(row);
                exact.add(row.pk() + " " + row.sk());
            }
            writeFile(partition, "part-a-" + file + ".parquet", rows);
        }
        var files = ArchiveFiles.committed(ArchivePartitions.folder(archivePath(), partition));

        assertThat(exact).hasSize(1100);
        assertThat(DistinctKeys.count(files, 2000, spill, 150)).isEqualTo(exact.size());
        assertThat(DistinctKeys.count(files, 2000, spill, 2000)).isEqualTo(exact.size());
        try (var left = Files.list(spill)) {
            assertThat(left).as("spill files deleted").isEmpty();
        }
    }

    /** The names of the folder's committed files: in these cases, this run wrote them all. */
    private PeriodMarker.ThisRun committed() throws IOException {
        Set<String> names = new HashSet<>();
        for (FileStatus file :
                ArchiveFiles.committed(ArchivePartitions.folder(archivePath(), ArchivePartitions.period(PERIOD)))) {
            names.add(file.getPath().getName());
        }
        return new PeriodMarker.ThisRun(names, null, Long.MIN_VALUE);
    }

    private static ArchiveRow row(String pk, String sk) {
        return new ArchiveRow(
                ArchivePartitions.period(PERIOD), pk, PERIOD.startMillis(), null, pk, sk, null, "{\"v\":1}");
    }

    private String archivePath() {
        return root.toUri().toString();
    }

    private void writeFile(String partition, String name, List<ArchiveRow> rows) throws IOException {
        Files.createDirectories(root.resolve(partition));
        Path file = new Path(ArchivePartitions.folder(archivePath(), partition), name);
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(file, FileSystem.WriteMode.NO_OVERWRITE)) {
            BulkWriter<ArchiveRow> writer =
                    ArchiveParquet.writerFactory(List.of()).create(out);
            for (ArchiveRow row : rows) {
                writer.addElement(row);
            }
            writer.finish();
        }
    }
}
