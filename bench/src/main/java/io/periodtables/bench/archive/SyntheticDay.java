package io.periodtables.bench.archive;

import io.periodtables.archive.ArchivePartitions;
import io.periodtables.archive.ArchiveReader;
import io.periodtables.archive.ArchiveRow;
import io.periodtables.archive.ArchiveSteps;
import io.periodtables.archive.PeriodManifest;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.PeriodLength;
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
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;

/**
 * What the archive benches share: a synthetic daily folder as the file sink leaves it (each file
 * one checkpoint of one subtask, its rows sorted, 1 % of the rows a copy of a row of the previous
 * file), on any of Flink's file systems; the whole marker timed on it; and the live heap sampled.
 */
final class SyntheticDay {
    private static final PeriodCalendar DAYS = new PeriodCalendar(PeriodLength.parse("P1D"), ZoneOffset.UTC);
    static final Period DAY = DAYS.periodOf(Instant.parse("2026-11-22T00:00:00Z"));
    static final int DEVICES = 100_000;

    private SyntheticDay() {}

    /** The day's folder under {@code archivePath}. */
    static org.apache.flink.core.fs.Path folder(String archivePath) {
        return ArchivePartitions.folder(archivePath, ArchivePartitions.period(DAY));
    }

    /** The whole marker's result, time and live heap. */
    record Marked(PeriodManifest manifest, double seconds, long peakHeap) {}

    /**
     * Runs the whole marker ({@link ArchiveSteps#markIfComplete}: the gate's footers, compaction,
     * deletes, the count over the compacted files) on the folder of {@code parts}, all this run's.
     */
    static Marked mark(String archivePath, List<FileStatus> parts, long written, Path spill) throws Exception {
        Set<String> names = new HashSet<>();
        parts.forEach(p -> names.add(p.getPath().getName()));
        Files.createDirectories(spill);
        resetPeaks();
        long t0 = System.nanoTime();
        ArchiveSteps.markIfComplete(archivePath, DAY, written, names, spill);
        double seconds = seconds(t0);
        long peak = peakHeap();
        PeriodManifest manifest = new ArchiveReader(archivePath).manifest(DAY).orElseThrow();
        if (manifest.rows() != written) {
            throw new IllegalStateException(
                    "the marker " + manifest + " differs from the " + written + " rows written");
        }
        return new Marked(manifest, seconds, peak);
    }

    /** Writes the day's part files on all cores; returns the rows written. */
    static long write(String archivePath, long rows, int files) throws Exception {
        String partition = ArchivePartitions.period(DAY);
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
                                ArchiveSteps.parquetWriter().create(out);
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

    static void resetPeaks() throws InterruptedException {
        System.gc();
        Thread.sleep(200);
        PEAK_LIVE.set(0);
    }

    static long peakHeap() {
        return PEAK_LIVE.get();
    }

    static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    static void log(String format, Object... args) {
        System.out.println(String.format(Locale.ROOT, "[archive bench] " + format, args));
    }

    static void deleteTree(Path root) throws java.io.IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (java.util.stream.Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
