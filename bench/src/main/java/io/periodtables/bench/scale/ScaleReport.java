package io.periodtables.bench.scale;

import io.periodtables.bench.Contenders;
import io.periodtables.bench.Stats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Section 14 of RESULTS.md from {@link ScaleBench}'s parts: a summary per part, then the dense
 * day's checkpoints per simulated hour and the sparse week's per simulated day, beside those of
 * another build when its samples are given.
 */
public final class ScaleReport {

    private ScaleReport() {}

    static String markdown(
            ScaleBench.Options options,
            List<ScaleBench.Part> parts,
            List<ScaleSample> before,
            String load,
            Path benchDir)
            throws IOException {
        StringBuilder md = new StringBuilder("## 14. Scale on RocksDB: a dense day and a sparse week (issue 39)\n\n");
        md.append(String.format(
                Locale.ROOT,
                "`%s`: the production topology (parallelism 2, 4 shards, daily periods,"
                        + " `rollups.every=%s`, `latest.enabled=true`) on RocksDB"
                        + " (`state.backend.type=rocksdb`, `execution.checkpointing.incremental=true`, file"
                        + " checkpoint storage, %s managed memory for the two slots), checkpoints every %,d ms,"
                        + " against the instant backend; the fleet's"
                        + " JSON records generated and parsed in the source, unthrottled (event time compressed)."
                        + " Load average at start %s. Sizes are Flink's checkpoint statistics (as its REST API"
                        + " serves them): *full* = the checkpoint's whole state, *incremental* = what that checkpoint"
                        + " uploaded; the simulated time of a checkpoint is the newest generated reading's at its"
                        + " trigger. *Per core* = readings ÷ CPU-seconds of the JVM without the instant backend's"
                        + " thread (generation and parsing included).%n%n",
                options.command(),
                Contenders.ROLLUPS_EVERY,
                ScaleBench.MANAGED_MEMORY,
                options.checkpointMillis(),
                load));
        md.append("| part | devices | a reading per device every | readings | wall s | readings/s |"
                + " readings per core-second | checkpoints | full size at the end | state bytes per device |"
                + " incremental max | duration median (max) ms | peak heap MiB | peak RSS MiB |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (ScaleBench.Part p : parts) {
            List<ScaleSample> c = p.checkpoints();
            long last = c.isEmpty() ? 0 : c.get(c.size() - 1).fullBytes();
            md.append(String.format(
                    Locale.ROOT,
                    "| %s (%d daily period%s) | %,d | %s | %,d | %.1f | %,.0f | %,.0f | %d | %s | %,.0f | %s | %s |"
                            + " %,d | %,d |%n",
                    p.name(),
                    p.periods(),
                    p.periods() == 1 ? "" : "s",
                    p.devices(),
                    human(p.perDevice()),
                    p.readings(),
                    p.wall(),
                    p.readings() / p.wall(),
                    p.perCore(),
                    c.size(),
                    bytes(last),
                    (double) last / p.devices(),
                    bytes(c.stream()
                            .mapToLong(ScaleSample::incrementalBytes)
                            .max()
                            .orElse(0)),
                    c.isEmpty()
                            ? "–"
                            : Stats.of(c.stream().map(s -> (double) s.millis()).toList())
                                    .format("%,.0f"),
                    p.peakHeap() >> 20,
                    p.peakRss() >> 20));
        }
        for (ScaleBench.Part p : parts) {
            boolean day = p.name().equals("day");
            long bucket =
                    day ? Duration.ofHours(1).toMillis() : Duration.ofDays(1).toMillis();
            int buckets = day ? 24 : p.periods();
            List<ScaleSample> mine = p.checkpoints();
            List<ScaleSample> theirs =
                    before.stream().filter(s -> s.part().equals(p.name())).toList();
            long start = mine.isEmpty() ? 0 : origin(mine);
            long theirStart = theirs.isEmpty() ? 0 : origin(theirs);
            md.append(String.format(
                    Locale.ROOT,
                    "%n%s: the last checkpoint of each simulated %s (full / incremental, duration)%s.%n%n",
                    day ? "Dense day" : "Sparse week",
                    day ? "hour" : "day",
                    theirs.isEmpty()
                            ? ""
                            : "; *before* = the same on the build the samples file "
                                    + options.before().getFileName() + " came from"));
            md.append(
                    theirs.isEmpty()
                            ? "| " + (day ? "hour" : "day")
                                    + " | full | incremental | duration ms | full per device |\n|---|---|---|---|---|\n"
                            : "| " + (day ? "hour" : "day")
                                    + " | full | incremental | duration ms | full per device | before: full | before:"
                                    + " incremental | before: duration ms | before: full per device"
                                    + " |\n|---|---|---|---|---|---|---|---|---|\n");
            for (int b = 0; b < buckets; b++) {
                md.append("| ").append(b + 1);
                cells(md, lastIn(mine, start, bucket, b), p.devices());
                if (!theirs.isEmpty()) {
                    cells(md, lastIn(theirs, theirStart, bucket, b), p.devices());
                }
                md.append(" |\n");
            }
            String svg = "scale-" + p.name() + ".svg";
            Files.writeString(
                    benchDir.resolve(svg),
                    ScaleChart.render(
                            (day ? "Dense day" : "Sparse week") + ": full checkpoint size per checkpoint",
                            mine,
                            theirs,
                            bucket,
                            day ? "hour" : "day"));
            md.append("\n![full checkpoint size over the simulated time](")
                    .append(svg)
                    .append(")\n");
        }
        return md.toString();
    }

    /** The start of the simulated bucket the first checkpoint falls in (the run's first midnight). */
    static long origin(List<ScaleSample> samples) {
        long first =
                samples.stream().mapToLong(ScaleSample::simulatedMillis).min().orElse(0);
        long day = Duration.ofDays(1).toMillis();
        return first - Math.floorMod(first, day);
    }

    private static Optional<ScaleSample> lastIn(List<ScaleSample> samples, long start, long bucket, int b) {
        long from = start + b * bucket;
        return samples.stream()
                .filter(s -> s.simulatedMillis() >= from && s.simulatedMillis() < from + bucket)
                .max(Comparator.comparingLong(ScaleSample::id));
    }

    private static void cells(StringBuilder md, Optional<ScaleSample> sample, int devices) {
        if (sample.isEmpty()) {
            md.append(" | – | – | – | –");
            return;
        }
        ScaleSample s = sample.get();
        md.append(String.format(
                Locale.ROOT,
                " | %s | %s | %,d | %,.0f B",
                bytes(s.fullBytes()),
                bytes(s.incrementalBytes()),
                s.millis(),
                (double) s.fullBytes() / devices));
    }

    public static String bytes(long b) {
        if (b >= 10L << 20) {
            return String.format(Locale.ROOT, "%,.1f MiB", b / 1048576.0);
        }
        return String.format(Locale.ROOT, "%,.0f KiB", b / 1024.0);
    }

    private static String human(Duration d) {
        return d.equals(Duration.ofMinutes(1))
                ? "event-minute"
                : d.equals(Duration.ofHours(1)) ? "event-hour" : d.toString();
    }

    /**
     * The parts of an earlier run, from its samples file ({@code --scale-from}): checkpoints only,
     * no times, CPU or memory (0), to put them beside another build's without running again.
     */
    static List<ScaleBench.Part> fromSamples(ScaleBench.Options options) throws IOException {
        List<ScaleSample> all = ScaleSample.read(options.from());
        List<ScaleBench.Part> parts = new ArrayList<>();
        for (String name : options.parts()) {
            boolean day = name.equals("day");
            int devices = day ? options.dayDevices() : options.weekDevices();
            Duration every = day ? Duration.ofMinutes(1) : Duration.ofHours(1);
            int periods = day ? 1 : 7;
            parts.add(new ScaleBench.Part(
                    name,
                    devices,
                    devices * (Duration.ofDays(periods).toMillis() / every.toMillis()),
                    every,
                    periods,
                    Double.NaN,
                    Double.NaN,
                    0,
                    0,
                    all.stream().filter(s -> s.part().equals(name)).toList()));
        }
        return parts;
    }
}
