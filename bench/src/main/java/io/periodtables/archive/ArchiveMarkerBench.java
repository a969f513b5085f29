package io.periodtables.archive;

import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.PeriodLength;
import io.periodtables.emulators.S3Emulator;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;

/**
 * The archive bench (issue 40, {@code ./bench/run --only archive}): a synthetic daily folder of
 * {@code rows} rows in {@code files} part files on local disk, as the file sink leaves it (each file
 * one checkpoint of one subtask, its rows sorted, 1 % of the rows a copy of a row of the previous
 * file), then the marker's work on it: the distinct-key count as the build before did it (one pass
 * over every file per million rows; timed for one pass and multiplied when that would take long),
 * the count now ({@link DistinctKeys}: one pass, spill files), and the whole marker now ({@link
 * PeriodMarker#markIfComplete}: the gate's footers, compaction, the count over the compacted files).
 *
 * <p>It lives in the archive's package (in the bench module, not in the archive's jar) to call
 * those package-private steps directly.
 */
public final class ArchiveMarkerBench {

    private static final PeriodCalendar DAYS = new PeriodCalendar(PeriodLength.parse("P1D"), ZoneOffset.UTC);
    private static final Period DAY = DAYS.periodOf(Instant.parse("2026-11-22T00:00:00Z"));
    private static final int DEVICES = 100_000;
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
        String partition = ArchivePartitions.period(DAY);
        Files.createDirectories(root.resolve(partition));
        long t0 = System.nanoTime();
        long written = write(archivePath, partition, rows, files);
        double writeSeconds = seconds(t0);
        org.apache.flink.core.fs.Path folder = ArchivePartitions.folder(archivePath, partition);
        List<FileStatus> parts = ArchiveFiles.committed(folder);
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
        long distinct = DistinctKeys.count(parts, written, spill);
        double countSeconds = seconds(t0);
        long countPeak = peakHeap();
        log("count now: %,d distinct in %.0f s", distinct, countSeconds);

        Set<String> names = new HashSet<>();
        parts.forEach(p -> names.add(p.getPath().getName()));
        resetPeaks();
        t0 = System.nanoTime();
        PeriodMarker.markIfComplete(
                archivePath, DAY, written, new PeriodMarker.ThisRun(names, null, Long.MIN_VALUE), spill);
        double markerSeconds = seconds(t0);
        long markerPeak = peakHeap();
        PeriodManifest manifest = new ArchiveReader(archivePath).manifest(DAY).orElseThrow();
        long compactedBytes = ArchiveFiles.committed(folder).stream()
                .mapToLong(FileStatus::getLen)
                .sum();
        log("marker now: %s in %.0f s", manifest, markerSeconds);
        if (manifest.distinctKeys() != distinct || manifest.rows() != written) {
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
                written <= DistinctKeys.KEYS_IN_MEMORY
                        ? 0
                        : (2 * written + DistinctKeys.KEYS_IN_MEMORY - 1) / DistinctKeys.KEYS_IN_MEMORY,
                parts.size(),
                countSeconds,
                countPeak >> 20,
                distinct));
        md.append(String.format(
                Locale.ROOT,
                "| whole marker now: footers, compaction, count | %,d footers, %,d files, %d compacted | %.0f s | %,d MB |"
                        + " %,d rows, %,d distinct, %d files (%,d MB) |%n%n",
                parts.size(),
                parts.size(),
                manifest.files(),
                markerSeconds,
                markerPeak >> 20,
                manifest.rows(),
                manifest.distinctKeys(),
                manifest.files(),
                compactedBytes >> 20));
        return md.toString();
    }

    /**
     * The folder in the local S3 emulator (s3proxy on 127.0.0.1, through Flink's S3 file system as
     * Managed Service for Apache Flink brings it), where every footer, part file and delete is a
     * request: the footers read one after the other, as the gate read them in the build before, then
     * the whole marker. Returns its part of section 16.
     */
    public static String runOnS3(long rows, int files, Path work, String command, String loadAverage) throws Exception {
        try (S3Emulator s3 = S3Emulator.start("archive-bench")) {
            FileSystem.initialize(Configuration.fromMap(S3Emulator.flinkOptions(s3.endpoint())), null);
            String archivePath = "s3://archive-bench/archive";
            String partition = ArchivePartitions.period(DAY);
            long t0 = System.nanoTime();
            long written = write(archivePath, partition, rows, files);
            double writeSeconds = seconds(t0);
            org.apache.flink.core.fs.Path folder = ArchivePartitions.folder(archivePath, partition);
            List<FileStatus> parts = ArchiveFiles.committed(folder);
            long bytes = parts.stream().mapToLong(FileStatus::getLen).sum();
            log(
                    "wrote %,d rows in %,d files (%,d MB) to S3 in %.0f s",
                    written, parts.size(), bytes >> 20, writeSeconds);

            t0 = System.nanoTime();
            long footerRows = 0;
            for (FileStatus part : parts) {
                footerRows += ArchiveFiles.rows(part);
            }
            double footerSeconds = seconds(t0);
            log("footers one after the other: %,d rows in %.1f s", footerRows, footerSeconds);

            Set<String> names = new HashSet<>();
            parts.forEach(p -> names.add(p.getPath().getName()));
            Path spill = work.resolve("archive-bench-spill");
            Files.createDirectories(spill);
            resetPeaks();
            t0 = System.nanoTime();
            PeriodMarker.markIfComplete(
                    archivePath, DAY, written, new PeriodMarker.ThisRun(names, null, Long.MIN_VALUE), spill);
            double markerSeconds = seconds(t0);
            long markerPeak = peakHeap();
            PeriodManifest manifest =
                    new ArchiveReader(archivePath).manifest(DAY).orElseThrow();
            log("marker on S3: %s in %.1f s", manifest, markerSeconds);
            if (manifest.rows() != written || footerRows != written) {
                throw new IllegalStateException("the marker " + manifest + " or the footers' " + footerRows
                        + " differ from the " + written + " rows written");
            }
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
                    markerSeconds,
                    markerPeak >> 20,
                    manifest.rows(),
                    manifest.distinctKeys(),
                    manifest.files());
        }
    }

    /** The build before's pass {@code pass} of {@code passes}: the distinct keys of its hash share. */
    private static long passBefore(List<FileStatus> files, int pass, int passes) throws IOException {
        Set<String> keys = new HashSet<>();
        for (FileStatus file : files) {
            ArchiveFiles.readKeys(file, key -> {
                if (Math.floorMod(key.hashCode(), passes) == pass) {
                    keys.add(key);
                }
            });
        }
        return keys.size();
    }

    /** Writes the part files on all cores; returns the rows written. */
    private static long write(String archivePath, String partition, long rows, int files) throws Exception {
        long perFile = rows / files;
        long dayMillis = 86_400_000L;
        ExecutorService pool = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors());
        try {
            List<Future<Long>> done = new ArrayList<>();
            for (int f = 0; f < files; f++) {
                int file = f;
                done.add(pool.submit(() -> {
                    List<ArchiveRow> list = new ArrayList<>();
                    for (long i = 0; i < perFile; i++) {
                        // 1 % of a file's rows repeat a row of the previous file (one that is no repeat
                        // itself): a duplicate item.
                        long n = file > 0 && i % 100 == 0 ? (file - 1) * perFile + i + 1 : file * perFile + i;
                        list.add(row(partition, n, n * dayMillis / rows));
                    }
                    org.apache.flink.core.fs.Path path = new org.apache.flink.core.fs.Path(
                            ArchivePartitions.folder(archivePath, partition),
                            String.format("part-bench-%05d.parquet", file));
                    try (FSDataOutputStream out = path.getFileSystem().create(path, FileSystem.WriteMode.OVERWRITE)) {
                        BulkWriter<ArchiveRow> writer =
                                ArchiveParquet.writerFactory(List.of()).create(out);
                        for (ArchiveRow row : list) {
                            writer.addElement(row);
                        }
                        writer.finish();
                    }
                    return (long) list.size();
                }));
            }
            long written = 0;
            for (Future<Long> f : done) {
                written += f.get();
            }
            return written;
        } finally {
            pool.shutdownNow();
        }
    }

    private static ArchiveRow row(String partition, long n, long offsetMillis) {
        String device = String.format("dev-%06d", n % DEVICES);
        long millis = DAY.startMillis() + offsetMillis;
        String sk = Instant.ofEpochMilli(millis) + "#" + String.format("%08x", (int) (n * 0x9E3779B9L));
        if (millis % 1000 == 0) {
            sk = Instant.ofEpochMilli(millis).toString().replace("Z", ".000Z") + sk.substring(sk.indexOf('#'));
        }
        return new ArchiveRow(
                partition,
                device,
                millis,
                null,
                device + "#" + (n % 2),
                sk,
                null,
                "{\"temperature\":" + (180 + n % 120) / 10.0 + ",\"humidity\":" + (300 + n % 500) / 10.0 + "}");
    }

    /** The largest heap in use right after a garbage collection since {@link #resetPeaks}: live data, not garbage. */
    private static final AtomicLong PEAK_LIVE = new AtomicLong();

    static {
        Thread sampler = new Thread(
                () -> {
                    while (true) {
                        long live = 0;
                        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                            if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
                                live += pool.getCollectionUsage().getUsed();
                            }
                        }
                        PEAK_LIVE.accumulateAndGet(live, Math::max);
                        try {
                            Thread.sleep(50);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "archive-bench-heap");
        sampler.setDaemon(true);
        sampler.start();
    }

    private static void resetPeaks() throws InterruptedException {
        System.gc();
        Thread.sleep(200);
        PEAK_LIVE.set(0);
    }

    private static long peakHeap() {
        return PEAK_LIVE.get();
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private static void log(String format, Object... args) {
        System.out.println(String.format(Locale.ROOT, "[archive bench] " + format, args));
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
