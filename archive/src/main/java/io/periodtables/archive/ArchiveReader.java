package io.periodtables.archive;

import io.periodtables.core.period.Period;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * Reads an archive through Flink's file systems: whether a period is archived (its marker exists,
 * which is what retention asks before deleting the period's table), its manifest, the partition
 * folders, and the committed rows of a folder.
 */
@PublicEvolving
public final class ArchiveReader {

    private final String archivePath;

    /**
     * @param archivePath the {@code archive.path} the job writes, e.g. {@code s3://bucket/prefix} or {@code file:///…}
     */
    public ArchiveReader(String archivePath) {
        this.archivePath = archivePath;
    }

    /** True when {@code period}'s {@code _SUCCESS} marker exists: all its rows are committed. */
    public boolean isArchived(Period period) throws IOException {
        Path marker = ArchivePartitions.marker(archivePath, period);
        return marker.getFileSystem().exists(marker);
    }

    /** The manifest of {@code period}'s marker, when the period is archived. */
    public Optional<PeriodManifest> manifest(Period period) throws IOException {
        return PeriodManifest.read(ArchivePartitions.marker(archivePath, period));
    }

    /** The partition folders ({@code period=…}, {@code late=…}) present, sorted by name. */
    public List<String> partitions() throws IOException {
        Path root = new Path(archivePath);
        FileSystem fs = root.getFileSystem();
        TreeSet<String> names = new TreeSet<>();
        if (fs.exists(root)) {
            for (FileStatus status : fs.listStatus(root)) {
                String name = status.getPath().getName();
                if (status.isDir()
                        && (name.startsWith(ArchivePartitions.PERIOD) || name.startsWith(ArchivePartitions.LATE))) {
                    names.add(name);
                }
            }
        }
        return new ArrayList<>(names);
    }

    /** Every committed row of the folder {@code partition}, file by file. */
    public void rows(String partition, Consumer<ArchiveRow> rows) throws IOException {
        for (FileStatus file : ArchiveFiles.committed(ArchivePartitions.folder(archivePath, partition))) {
            ArchiveFiles.read(file, partition, rows);
        }
    }

    /** How many committed data files the folder {@code partition} holds. */
    public int files(String partition) throws IOException {
        return ArchiveFiles.committed(ArchivePartitions.folder(archivePath, partition))
                .size();
    }
}
