package io.periodtables.bench.archive;

import static io.periodtables.bench.archive.SyntheticDay.DAY;
import static io.periodtables.bench.archive.SyntheticDay.DEVICES;
import static io.periodtables.bench.archive.SyntheticDay.deleteTree;
import static io.periodtables.bench.archive.SyntheticDay.log;
import static io.periodtables.bench.archive.SyntheticDay.peakHeap;
import static io.periodtables.bench.archive.SyntheticDay.resetPeaks;
import static io.periodtables.bench.archive.SyntheticDay.seconds;
import static io.periodtables.bench.archive.SyntheticDay.write;

import io.periodtables.archive.ArchivePartitions;
import io.periodtables.archive.ArchiveSteps;
import io.periodtables.archive.PeriodManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.flink.core.fs.FileStatus;

/**
 * The archive bench (issue 40, {@code ./bench/run --only archive}): a synthetic daily folder of
 * {@code rows} rows in {@code files} part files on local disk ({@link SyntheticDay}), then the marker's work on it: the
 * distinct-key count as the build before did it (one pass
 * over every file per million rows; timed for one pass and multiplied when that would take long),
 * the count now ({@link ArchiveSteps#countDistinctKeys}: one pass, spill files), and the whole
 * marker now ({@link ArchiveSteps#markIfComplete}: the gate's footers, compaction, the count over
 * the compacted files).
 */
public final class ArchiveMarkerBench {

    /** The build before held this many keys per pass. */
    private static final long KEYS_PER_PASS_BEFORE = 1_000_000;
    /** Passes the before-method is run in full; beyond, one pass is timed and multiplied. */
    private static final int FULL_PASSES_BEFORE = 3;

    private ArchiveMarkerBench() {}

    /** Runs the bench under {@code work} and returns its RESULTS.md section, headed by {@code command}. */
    public static String run(long rows, int files, Path work, String command, String loadAverage) throws Exception {
        Path root = work.resolve("archive-bench");
        deleteTree(root);
        String archivePath = root.toUri().toString();
        Files.createDirectories(root.resolve(ArchivePartitions.period(DAY)));
        long t0 = System.nanoTime();
        long written = write(archivePath, rows, files);
        double writeSeconds = seconds(t0);
        org.apache.flink.core.fs.Path folder = SyntheticDay.folder(archivePath);
        List<FileStatus> parts = ArchiveSteps.committedFiles(folder);
        long bytes = parts.stream().mapToLong(FileStatus::getLen).sum();
        log("wrote %,d rows in %,d files (%,d MB) in %.0f s", written, parts.size(), bytes >> 20, writeSeconds);

        int passes = (int) Math.max(1, (written + KEYS_PER_PASS_BEFORE - 1) / KEYS_PER_PASS_BEFORE);
        resetPeaks();
        t0 = System.nanoTime();
        int timedPasses = Math.min(passes, passes <= FULL_PASSES_BEFORE ? passes : 1);
        long distinctBefore = 0;
        for (int pass = 0; pass < timedPasses; pass++) {
            distinctBefore += passBefore(parts, pass, passes);
        }
        double beforeSeconds = seconds(t0) * passes / timedPasses;
        long beforePeak = peakHeap();
        log("before: %d passes, %.0f s%s", passes, beforeSeconds, timedPasses < passes ? " (extrapolated)" : "");

        Path spill = work.resolve("archive-bench-spill");
        Files.createDirectories(spill);
        resetPeaks();
        t0 = System.nanoTime();
        long distinct = ArchiveSteps.countDistinctKeys(parts, written, spill);
        double countSeconds = seconds(t0);
        long countPeak = peakHeap();
        log("count now: %,d distinct in %.0f s", distinct, countSeconds);

        SyntheticDay.Marked marked = SyntheticDay.mark(archivePath, parts, written, spill);
        PeriodManifest manifest = marked.manifest();
        long compactedBytes = ArchiveSteps.committedFiles(folder).stream()
                .mapToLong(FileStatus::getLen)
                .sum();
        log("marker now: %s in %.0f s", manifest, marked.seconds());
        if (manifest.distinctKeys() != distinct) {
            throw new IllegalStateException("the marker " + manifest + " differs from the count " + distinct);
        }
        if (timedPasses == passes && distinctBefore != distinct) {
            throw new IllegalStateException("before " + distinctBefore + " != now " + distinct);
        }
        deleteTree(root);

        StringBuilder md = new StringBuilder();
        md.append("## 16. Archive markers and compaction at a day's size (issue 40)\n\n");
        md.append(String.format(
                Locale.ROOT,
                "`%s`: a synthetic `period=` folder on local disk as the file sink leaves it, %,d rows of"
                        + " %,d devices in %,d part files (%,d MB, written in %.0f s; 1 %% of a file's rows repeat"
                        + " rows of the previous file), then what the marker does with it, one after the other"
                        + " in one JVM (`-Xmx2g`). Peak heap: the most heap in use right after a garbage"
                        + " collection during the step (sampled every 50 ms): what the step keeps alive. Load"
                        + " average at the start: %s.%n%n",
                command,
                written,
                DEVICES,
                parts.size(),
                bytes >> 20,
                writeSeconds,
                loadAverage));
        md.append("| step | reads | time | peak heap | result |\n|---|---|---|---|---|\n");
        md.append(String.format(
                Locale.ROOT,
                "| distinct keys before (one pass per million rows) | %d × %,d files | %s | %,d MB | %s |%n",
                passes,
                parts.size(),
                timedPasses < passes
                        ? String.format(Locale.ROOT, "%.0f s (%d × one pass, timed)", beforeSeconds, passes)
                        : String.format(Locale.ROOT, "%.0f s", beforeSeconds),
                beforePeak >> 20,
                timedPasses < passes ? "(one pass timed)" : String.format(Locale.ROOT, "%,d", distinctBefore)));
        md.append(String.format(
                Locale.ROOT,
                "| distinct keys now (one pass, %d spill partitions) | 1 × %,d files | %.0f s | %,d MB | %,d |%n",
                written <= ArchiveSteps.keysInMemory()
                        ? 0
                        : (2 * written + ArchiveSteps.keysInMemory() - 1) / ArchiveSteps.keysInMemory(),
                parts.size(),
                countSeconds,
                countPeak >> 20,
                distinct));
        md.append(String.format(
                Locale.ROOT,
                "| whole marker now: footers, compaction, count | %,d footers, %,d files, %d compacted | %.0f s | %,d"
                        + " MB | %,d rows, %,d distinct, %d files (%,d MB) |%n%n",
                parts.size(),
                parts.size(),
                manifest.files(),
                marked.seconds(),
                marked.peakHeap() >> 20,
                manifest.rows(),
                manifest.distinctKeys(),
                manifest.files(),
                compactedBytes >> 20));
        return md.toString();
    }

    /** The build before's pass {@code pass} of {@code passes}: the distinct keys of its hash share. */
    private static long passBefore(List<FileStatus> files, int pass, int passes) throws IOException {
        Set<String> keys = new HashSet<>();
        for (FileStatus file : files) {
            ArchiveSteps.readKeys(file, key -> {
                if (Math.floorMod(key.hashCode(), passes) == pass) {
                    keys.add(key);
                }
            });
        }
        return keys.size();
    }
}
