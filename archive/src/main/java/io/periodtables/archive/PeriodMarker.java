package io.periodtables.archive;

import io.periodtables.core.period.Period;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides and writes one period's completion marker from the committed files alone: when their
 * footers add up to the rows the job sent to the period, every file is committed (the file sink
 * commits each row exactly once), so it counts the distinct keys and writes the manifest once.
 */
final class PeriodMarker {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodMarker.class);

    /** Keys held in memory at once while counting distinct keys; larger periods take several passes. */
    static final long KEYS_PER_PASS = 1_000_000;

    private PeriodMarker() {}

    /**
     * Writes the marker of {@code period} if {@code expectedRows} rows are committed in its folder.
     *
     * @return true when the marker exists afterwards (written now or before)
     */
    static boolean markIfComplete(String archivePath, Period period, long expectedRows) throws IOException {
        Path marker = ArchivePartitions.marker(archivePath, period);
        if (marker.getFileSystem().exists(marker)) {
            return true;
        }
        List<FileStatus> files =
                ArchiveFiles.committed(ArchivePartitions.folder(archivePath, ArchivePartitions.period(period)));
        long committed = 0;
        for (FileStatus file : files) {
            committed += ArchiveFiles.rows(file);
        }
        if (committed < expectedRows) {
            LOG.debug("Period {}: {} of {} rows committed so far", period.label(), committed, expectedRows);
            return false;
        }
        if (committed > expectedRows) {
            LOG.warn(
                    "Period {} has {} committed rows where this job wrote {}: its folder holds files of a run "
                            + "that started without this job's state; the marker counts them all",
                    period.label(),
                    committed,
                    expectedRows);
        }
        PeriodManifest manifest =
                new PeriodManifest(period.label(), committed, distinctKeys(files, committed), files.size());
        if (manifest.writeOnce(marker)) {
            LOG.info(
                    "Archived period {}: {} rows, {} distinct items, {} files",
                    period.label(),
                    manifest.rows(),
                    manifest.distinctKeys(),
                    manifest.files());
        }
        return true;
    }

    /** Distinct ({@code pk}, {@code sk}) over {@code files}, holding at most about {@link #KEYS_PER_PASS} keys at once. */
    static long distinctKeys(List<FileStatus> files, long rows) throws IOException {
        int passes = (int) Math.max(1, (rows + KEYS_PER_PASS - 1) / KEYS_PER_PASS);
        long distinct = 0;
        Set<String> keys = new HashSet<>();
        for (int pass = 0; pass < passes; pass++) {
            int thisPass = pass;
            keys.clear();
            for (FileStatus file : files) {
                ArchiveFiles.readKeys(file, key -> {
                    if (Math.floorMod(key.hashCode(), passes) == thisPass) {
                        keys.add(key);
                    }
                });
            }
            distinct += keys.size();
        }
        return distinct;
    }
}
