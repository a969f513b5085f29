package io.periodtables.bench.archive;

import static io.periodtables.bench.archive.SyntheticDay.log;
import static io.periodtables.bench.archive.SyntheticDay.seconds;
import static io.periodtables.bench.archive.SyntheticDay.write;

import io.periodtables.archive.ArchiveSteps;
import io.periodtables.archive.PeriodManifest;
import io.periodtables.emulators.S3Emulator;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;

/**
 * The archive bench on the local S3 emulator ({@code ./bench/run --only archive --archive-store s3}):
 * the synthetic day ({@link SyntheticDay}) in s3proxy, where every footer, part file and delete is
 * a request, as on S3.
 */
public final class ArchiveMarkerS3Bench {

    private ArchiveMarkerS3Bench() {}

    /**
     * The folder in the local S3 emulator (s3proxy on 127.0.0.1, through Flink's S3 file system as
     * Managed Service for Apache Flink brings it), where every footer, part file and delete is a
     * request: the footers read one after the other, as the gate read them in the build before, then
     * the whole marker. Returns its part of section 16.
     */
    public static String run(long rows, int files, Path work, String command, String loadAverage) throws Exception {
        try (S3Emulator s3 = S3Emulator.start("archive-bench")) {
            FileSystem.initialize(Configuration.fromMap(S3Emulator.flinkOptions(s3.endpoint())), null);
            String archivePath = "s3://archive-bench/archive";
            long t0 = System.nanoTime();
            long written = write(archivePath, rows, files);
            double writeSeconds = seconds(t0);
            List<FileStatus> parts = ArchiveSteps.committedFiles(SyntheticDay.folder(archivePath));
            long bytes = parts.stream().mapToLong(FileStatus::getLen).sum();
            log(
                    "wrote %,d rows in %,d files (%,d MB) to S3 in %.0f s",
                    written, parts.size(), bytes >> 20, writeSeconds);

            t0 = System.nanoTime();
            long footerRows = 0;
            for (FileStatus part : parts) {
                footerRows += ArchiveSteps.footerRows(part);
            }
            double footerSeconds = seconds(t0);
            log("footers one after the other: %,d rows in %.1f s", footerRows, footerSeconds);
            if (footerRows != written) {
                throw new IllegalStateException("the footers' " + footerRows + " differ from the " + written + " rows");
            }

            SyntheticDay.Marked marked =
                    SyntheticDay.mark(archivePath, parts, written, work.resolve("archive-bench-spill"));
            PeriodManifest manifest = marked.manifest();
            log("marker on S3: %s in %.1f s", manifest, marked.seconds());
            return String.format(
                    Locale.ROOT,
                    "`%s`: %,d rows in %,d part files (%,d MB, written in %.0f s) in the local S3 emulator"
                            + " (s3proxy %s on 127.0.0.1, objects in memory), read through Flink's S3 file system"
                            + " (`flink-s3-fs-hadoop`); load average at the start: %s.%n%n"
                            + "| step | requests | time | peak heap | result |%n|---|---|---|---|---|%n"
                            + "| footers, one after the other | %,d footers | %.1f s | | %,d rows |%n"
                            + "| whole marker: footers, compaction, deletes, count | %,d footers, %,d files, %,d"
                            + " deletes, %d compacted | %.1f s | %,d MB | %,d rows, %,d distinct, %d files |%n%n",
                    command,
                    written,
                    parts.size(),
                    bytes >> 20,
                    writeSeconds,
                    S3Emulator.VERSION,
                    loadAverage,
                    parts.size(),
                    footerSeconds,
                    footerRows,
                    parts.size(),
                    parts.size(),
                    parts.size(),
                    manifest.files(),
                    marked.seconds(),
                    marked.peakHeap() >> 20,
                    manifest.rows(),
                    manifest.distinctKeys(),
                    manifest.files());
        }
    }
}
