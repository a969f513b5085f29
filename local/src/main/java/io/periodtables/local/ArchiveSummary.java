package io.periodtables.local;

import io.periodtables.archive.ArchivePartitions;
import io.periodtables.archive.ArchiveReader;
import io.periodtables.archive.PeriodManifest;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import org.apache.flink.core.fs.Path;

/**
 * The archive part of the local run's summary: each folder under {@code archive.path}, a period's
 * numbers as its {@code _SUCCESS} marker states them, or that it is not archived (yet).
 */
final class ArchiveSummary {

    private ArchiveSummary() {}

    static void print(String archivePath, PrintStream out) {
        out.println();
        try {
            ArchiveReader reader = new ArchiveReader(archivePath);
            List<String> partitions = reader.partitions();
            out.println("Archive " + archivePath + (partitions.isEmpty() ? ": nothing archived" : ""));
            if (partitions.isEmpty()) {
                return;
            }
            out.printf("%-40s %12s %12s %6s%n", "folder", "rows", "distinct", "files");
            for (String partition : partitions) {
                Optional<PeriodManifest> manifest = PeriodManifest.read(
                        new Path(ArchivePartitions.folder(archivePath, partition), ArchivePartitions.MARKER));
                if (manifest.isPresent()) {
                    PeriodManifest m = manifest.get();
                    out.printf("%-40s %,12d %,12d %,6d  archived%n", partition, m.rows(), m.distinctKeys(), m.files());
                } else {
                    out.printf(
                            "%-40s %12s %12s %,6d  %s%n",
                            partition,
                            "",
                            "",
                            reader.files(partition),
                            partition.startsWith("late=")
                                    ? "late readings (no marker)"
                                    : "open: no _SUCCESS until a run closes the period");
                }
            }
        } catch (IOException e) {
            out.println("Archive " + archivePath + " cannot be read: " + e);
        }
    }
}
