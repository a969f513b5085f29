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

        assertThat(PeriodMarker.markIfComplete(archivePath(), PERIOD, 5, committed()))
                .as("3 of 5 rows committed")
                .isFalse();
        assertThat(new ArchiveReader(archivePath()).isArchived(PERIOD)).isFalse();

        writeFile(partition, "part-b-0.parquet", List.of(row("dev-1", "s2"), row("dev-3", "s1")));
        assertThat(PeriodMarker.markIfComplete(archivePath(), PERIOD, 5, committed()))
                .isTrue();

        ArchiveReader reader = new ArchiveReader(archivePath());
        assertThat(reader.isArchived(PERIOD)).isTrue();
        assertThat(reader.manifest(PERIOD)).contains(new PeriodManifest(PERIOD.label(), 5, 4, 2));
    }

    @Test
    void aMarkerIsNeverReplaced() throws IOException {
        String partition = ArchivePartitions.period(PERIOD);
        writeFile(partition, "part-a-0.parquet", List.of(row("dev-1", "s1")));
        assertThat(PeriodMarker.markIfComplete(archivePath(), PERIOD, 1, committed()))
                .isTrue();

        writeFile(partition, "part-c-0.parquet", List.of(row("dev-9", "s9")));
        assertThat(PeriodMarker.markIfComplete(archivePath(), PERIOD, 2, committed()))
                .isTrue();

        assertThat(new ArchiveReader(archivePath()).manifest(PERIOD))
                .contains(new PeriodManifest(PERIOD.label(), 1, 1, 1));
    }

    @Test
    void anEmptyPeriodIsArchivedWithNoFiles() throws IOException {
        assertThat(PeriodMarker.markIfComplete(
                        archivePath(), PERIOD, 0, new PeriodMarker.ThisRun(Set.of(), null, Long.MIN_VALUE)))
                .isTrue();
        assertThat(new ArchiveReader(archivePath()).manifest(PERIOD))
                .contains(new PeriodManifest(PERIOD.label(), 0, 0, 0));
    }

    @Test
    void distinctKeysTakeSeveralPassesOverLargePeriodsAndStayExact() throws IOException {
        String partition = ArchivePartitions.period(PERIOD);
        List<ArchiveRow> rows = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            rows.add(row("dev-" + i % 1000 % 7, "s" + i % 1000));
        }
        writeFile(partition, "part-a-0.parquet", rows);
        var files = ArchiveFiles.committed(ArchivePartitions.folder(archivePath(), partition));

        assertThat(PeriodMarker.distinctKeys(files, PeriodMarker.KEYS_PER_PASS * 5))
                .isEqualTo(1000);
        assertThat(PeriodMarker.distinctKeys(files, 3000)).isEqualTo(1000);
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
