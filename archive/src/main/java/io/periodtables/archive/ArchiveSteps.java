package io.periodtables.archive;

import io.periodtables.core.period.Period;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

/**
 * The archive marker's steps one at a time, for measuring them (the bench's archive runs): a
 * folder's committed part files, a file's footer and keys, the distinct-key count, the whole
 * marker, and the file sink's Parquet writer. Public on purpose so that nothing outside the
 * archive lives in its package; jobs add the archive through {@link Archive}, and these steps
 * change with it.
 */
@Internal
public final class ArchiveSteps {

    private ArchiveSteps() {}

    /** The committed data files of a partition folder, by name. */
    public static List<FileStatus> committedFiles(Path folder) throws IOException {
        return ArchiveFiles.committed(folder);
    }

    /** The number of rows of a data file, from its footer. */
    public static long footerRows(FileStatus file) throws IOException {
        return ArchiveFiles.rows(file);
    }

    /** The keys of every row of a data file, as {@code pk + '\u0000' + sk}. */
    public static void readKeys(FileStatus file, Consumer<String> keys) throws IOException {
        ArchiveFiles.readKeys(file, keys);
    }

    /** The distinct keys of {@code files}, which hold {@code rows} rows, spilling under {@code spill}. */
    public static long countDistinctKeys(List<FileStatus> files, long rows, java.nio.file.Path spill)
            throws IOException {
        return DistinctKeys.count(files, rows, spill);
    }

    /** How many keys the distinct-key count holds in memory before it spills. */
    public static long keysInMemory() {
        return DistinctKeys.KEYS_IN_MEMORY;
    }

    /**
     * The whole marker of {@code period} (the gate's footers, compaction, deletes, the count over
     * the compacted files) as the job runs it, with the files named {@code thisRunsFiles} taken as
     * this run's.
     *
     * @return true when the marker exists afterwards
     */
    public static boolean markIfComplete(
            String archivePath, Period period, long rows, Set<String> thisRunsFiles, java.nio.file.Path spill)
            throws IOException {
        return PeriodMarker.markIfComplete(
                archivePath, period, rows, new PeriodMarker.ThisRun(thisRunsFiles, null, Long.MIN_VALUE), spill);
    }

    /** The file sink's writer: one Parquet file per part file of the archive's columns, its rows sorted. */
    public static BulkWriter.Factory<ArchiveRow> parquetWriter() {
        return ArchiveParquet.writerFactory(List.of());
    }
}
