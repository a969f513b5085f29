package io.periodtables.archive;

import io.periodtables.core.period.Period;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides and writes one period's completion marker, after compacting the period's folder
 * ({@link PeriodCompaction}) and counting its distinct keys ({@link DistinctKeys}). The gate is this run's own
 * committed files ({@link ThisRunsFiles}): once their footers add up to the rows the job sent to the period, every
 * file of this run is committed (the file sink commits each row exactly once). Files of another
 * run in the folder (a restore from an older checkpoint, a run without this job's state) are
 * committed already, so they never open the gate early; the manifest counts the whole folder,
 * theirs included, so that it says what the folder holds.
 */
final class PeriodMarker {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodMarker.class);

    private PeriodMarker() {}

    /**
     * Which committed files of a period's folder are this run's.
     *
     * @param named the data files the committer named when it committed them
     * @param presentWhenCommitsEnded null while the committer reports its commits; after its input
     *     ended, the committed files the folder held then: a file committed later (at the final
     *     checkpoint) is this run's too
     * @param committedUnnamedUntil files committed up to this time (epoch millis) are this run's:
     *     after a restore of a savepoint whose build kept no names; {@code Long.MIN_VALUE} otherwise
     */
    record ThisRun(Set<String> named, @Nullable Set<String> presentWhenCommitsEnded, long committedUnnamedUntil) {
        boolean holds(FileStatus file) {
            String name = file.getPath().getName();
            return named.contains(name)
                    || (presentWhenCommitsEnded != null && !presentWhenCommitsEnded.contains(name))
                    || file.getModificationTime() <= committedUnnamedUntil;
        }
    }

    /**
     * Writes the marker of {@code period} if the files this run committed to its folder hold
     * {@code expectedRows} rows, after compacting the folder ({@link PeriodCompaction}); finishes
     * a compaction a crash interrupted first.
     *
     * @param spill local folder for the distinct-key count's spill files ({@link DistinctKeys})
     * @return true when the marker exists afterwards (written now or before)
     */
    static boolean markIfComplete(
            String archivePath, Period period, long expectedRows, ThisRun thisRun, java.nio.file.Path spill)
            throws IOException {
        Path marker = ArchivePartitions.marker(archivePath, period);
        if (marker.getFileSystem().exists(marker)) {
            return true;
        }
        Path folder = ArchivePartitions.folder(archivePath, ArchivePartitions.period(period));
        if (PeriodCompaction.resume(folder)) {
            // Decided before a crash: this run's files were all committed then.
            return mark(period, marker, folder, spill);
        }
        List<FileStatus> files = ArchiveFiles.committed(folder);
        List<Long> rows = FileRequests.each(files, ArchiveFiles::rows);
        long ours = 0;
        long theirs = 0;
        int others = 0;
        for (int i = 0; i < files.size(); i++) {
            if (thisRun.holds(files.get(i))) {
                ours += rows.get(i);
            } else {
                theirs += rows.get(i);
                others++;
            }
        }
        if (ours < expectedRows) {
            LOG.debug("Period {}: {} of {} rows committed so far", period.label(), ours, expectedRows);
            return false;
        }
        if (ours > expectedRows) {
            LOG.warn(
                    "Period {}: this job's committed files hold {} rows where it sent {}; the marker counts them all",
                    period.label(),
                    ours,
                    expectedRows);
        }
        if (others > 0) {
            LOG.warn(
                    "Period {}: its folder also holds {} rows in {} files of another run (a restore from an older "
                            + "checkpoint, or a run that started without this job's state); the marker counts them too",
                    period.label(),
                    theirs,
                    others);
        }
        PeriodCompaction.compact(folder, files);
        return mark(period, marker, folder, spill);
    }

    /** Counts the (compacted) folder, writes its marker, then drops the compaction's plan. */
    private static boolean mark(Period period, Path marker, Path folder, java.nio.file.Path spill) throws IOException {
        List<FileStatus> files = ArchiveFiles.committed(folder);
        long rows = FileRequests.sum(files, ArchiveFiles::rows);
        PeriodManifest manifest =
                new PeriodManifest(period.label(), rows, DistinctKeys.count(files, rows, spill), files.size());
        if (manifest.writeOnce(marker)) {
            LOG.info(
                    "Archived period {}: {} rows, {} distinct items, {} files",
                    period.label(),
                    manifest.rows(),
                    manifest.distinctKeys(),
                    manifest.files());
        }
        PeriodCompaction.finished(folder);
        return true;
    }
}
