package io.periodtables.bench.run;

import io.periodtables.bench.BenchLog;
import io.periodtables.bench.MachineFacts;
import io.periodtables.bench.archive.ArchiveMarkerBench;
import io.periodtables.bench.archive.ArchiveMarkerS3Bench;
import io.periodtables.bench.capacity.CapacityBench;
import io.periodtables.bench.e2e.E2eBench;
import io.periodtables.bench.freshness.FreshnessBench;
import io.periodtables.bench.hotdevice.HotDeviceBench;
import io.periodtables.bench.kinesis.IdleKinesisBench;
import io.periodtables.bench.kinesis.KinesisBackfillBench;
import io.periodtables.bench.memory.MemoryBench;
import io.periodtables.bench.query.QueryBench;
import io.periodtables.bench.recovery.RecoveryBench;
import io.periodtables.bench.rollover.RolloverBench;
import io.periodtables.bench.scale.ScaleBench;
import io.periodtables.bench.size.ItemSizeBench;
import io.periodtables.bench.writeunits.WriteUnitsBench;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs the benchmarks and writes {@code bench/RESULTS.md}. Arguments: {@code --n 200000}
 * (readings per end-to-end run), {@code --capacity-n 500000} (per
 * instant-backend run), {@code --contenders full-job,sink-only,raw-sdk} (of the capacity bench), {@code --memory-n
 * 1000000} (100k devices), {@code --runs 3}, {@code --only
 * e2e,capacity,rollover,size,memory,recovery,query,idle-kinesis,kinesis-backfill,freshness} (and {@code archive}, only
 * when named: {@code --archive-rows}, {@code --archive-files}, {@code --archive-store s3}),
 * {@code --bench-dir bench}, and for freshness {@code --freshness-rates 1000,5000} (readings/s),
 * {@code --freshness-warm-up 30} and {@code --freshness-seconds 45} (per rate), and for scale
 * {@code --scale-parts day,week}, {@code --scale-day-devices 10000}, {@code --scale-week-devices 100000},
 * {@code --scale-checkpoint-ms 10000} and {@code --scale-before <samples.tsv>} (another build's
 * {@code bench/target/scale-samples.tsv}, shown beside) and {@code --scale-from <samples.tsv>} (render an
 * earlier run's samples instead of running), and {@code hot-device} (only when named: it takes
 * {@code --hot-device-minutes 10} and more), and {@code write-units} (only when named: about 10 minutes).
 * Start it with {@code ./bench/run}.
 */
public final class BenchMain {

    static final Set<String> ALL = new LinkedHashSet<>(Arrays.asList(
            "size",
            "e2e",
            "capacity",
            "rollover",
            "memory",
            "recovery",
            "query",
            "idle-kinesis",
            "kinesis-backfill",
            "freshness",
            "scale"));

    static final String QUERY_SECTION = "7-query.md";
    static final String IDLE_KINESIS_SECTION = "8-idle-kinesis.md";
    static final String KINESIS_BACKFILL_SECTION = "18-kinesis-backfill.md";
    static final String FRESHNESS_SECTION = "11-freshness.md";
    static final String SCALE_SECTION = "14-scale.md";
    static final String ARCHIVE_SECTION = "16-archive.md";
    static final String HOT_DEVICE_SECTION = "20-hot-device.md";
    static final String WRITE_UNITS_SECTION = "21-write-units.md";
    /**
     * Parts whose section, when only they run, goes into the RESULTS.md there is, whatever sections target/ still
     * holds.
     */
    static final Map<String, String> SPLICED = Map.of(
            "query",
            QUERY_SECTION,
            "idle-kinesis",
            IDLE_KINESIS_SECTION,
            "kinesis-backfill",
            KINESIS_BACKFILL_SECTION,
            "freshness",
            FRESHNESS_SECTION,
            "scale",
            SCALE_SECTION,
            "archive",
            ARCHIVE_SECTION,
            "hot-device",
            HOT_DEVICE_SECTION,
            "write-units",
            WRITE_UNITS_SECTION);

    private BenchMain() {}

    public static void main(String[] args) throws Exception {
        int n = 200_000;
        int runs = 3;
        int capacityN = 500_000;
        int memoryN = 1_000_000;
        Set<String> only = ALL;
        Set<String> contenders = new LinkedHashSet<>(CapacityBench.CONTENDERS);
        Path benchDir = Path.of("bench");
        List<Double> freshnessRates = List.of(1000.0, 5000.0);
        Duration freshnessWarmUp = Duration.ofSeconds(30);
        Duration freshnessPhase = Duration.ofSeconds(45);
        List<String> scaleParts = List.of("day", "week");
        int scaleDayDevices = 10_000;
        int scaleWeekDevices = 100_000;
        long scaleCheckpointMillis = 10_000;
        Path scaleBefore = null;
        Path scaleFrom = null;
        long archiveRows = 100_000_000;
        int archiveFiles = 10_000;
        String archiveStore = "local";
        int hotDeviceMinutes = 10;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--n" -> n = Integer.parseInt(args[i + 1].replace("_", ""));
                case "--capacity-n" -> capacityN = Integer.parseInt(args[i + 1].replace("_", ""));
                case "--contenders" -> contenders = new LinkedHashSet<>(Arrays.asList(args[i + 1].split(",")));
                case "--memory-n" -> memoryN = Integer.parseInt(args[i + 1].replace("_", ""));
                case "--runs" -> runs = Integer.parseInt(args[i + 1]);
                case "--only" -> only = new LinkedHashSet<>(Arrays.asList(args[i + 1].split(",")));
                case "--bench-dir" -> benchDir = Path.of(args[i + 1]);
                case "--freshness-rates" ->
                    freshnessRates = Arrays.stream(args[i + 1].split(","))
                            .map(r -> Double.parseDouble(r.replace("_", "")))
                            .toList();
                case "--freshness-warm-up" -> freshnessWarmUp = Duration.ofSeconds(Long.parseLong(args[i + 1]));
                case "--freshness-seconds" -> freshnessPhase = Duration.ofSeconds(Long.parseLong(args[i + 1]));
                case "--scale-parts" -> scaleParts = Arrays.asList(args[i + 1].split(","));
                case "--scale-day-devices" -> scaleDayDevices = Integer.parseInt(args[i + 1].replace("_", ""));
                case "--scale-week-devices" -> scaleWeekDevices = Integer.parseInt(args[i + 1].replace("_", ""));
                case "--scale-checkpoint-ms" -> scaleCheckpointMillis = Long.parseLong(args[i + 1].replace("_", ""));
                case "--scale-before" -> scaleBefore = Path.of(args[i + 1]);
                case "--scale-from" -> scaleFrom = Path.of(args[i + 1]);
                case "--archive-rows" -> archiveRows = Long.parseLong(args[i + 1].replace("_", ""));
                case "--archive-files" -> archiveFiles = Integer.parseInt(args[i + 1].replace("_", ""));
                case "--archive-store" -> archiveStore = args[i + 1];
                case "--hot-device-minutes" -> hotDeviceMinutes = Integer.parseInt(args[i + 1]);
                default ->
                    throw new IllegalArgumentException("unknown argument " + args[i]
                            + "; expected --n, --capacity-n, --contenders, --memory-n, --runs, --only "
                            + String.join(",", ALL) + ", --bench-dir, "
                            + "--freshness-rates, --freshness-warm-up, --freshness-seconds, --scale-parts,"
                            + " --scale-day-devices, --scale-week-devices, --scale-checkpoint-ms, --scale-before,"
                            + " --scale-from,"
                            + " --archive-rows, --archive-files, --archive-store local|s3, --hot-device-minutes");
            }
        }
        ResultsFile results = new ResultsFile(benchDir);
        for (String part : only) {
            BenchLog.log("=== " + part + " (load average " + MachineFacts.loadAverage() + ")");
            switch (part) {
                case "size" -> results.writeSection("4-size.md", ItemSizeBench.run());
                case "e2e" -> results.writeSection("1-e2e.md", E2eBench.run(n, runs));
                case "rollover" -> results.writeSection("3-rollover.md", RolloverBench.run(benchDir));
                case "memory" -> results.writeSection("5-memory.md", MemoryBench.run(memoryN, benchDir));
                case "recovery" -> results.writeSection("6-recovery.md", RecoveryBench.run(runs, benchDir));
                case "capacity" ->
                    results.writeSection("2-capacity.md", CapacityBench.run(capacityN, runs, benchDir, contenders));
                case "query" -> results.writeSection(QUERY_SECTION, QueryBench.run());
                case "idle-kinesis" -> results.writeSection(IDLE_KINESIS_SECTION, IdleKinesisBench.run());
                case "kinesis-backfill" ->
                    results.writeSection(KINESIS_BACKFILL_SECTION, KinesisBackfillBench.run(runs));
                case "freshness" ->
                    results.writeSection(
                            FRESHNESS_SECTION,
                            FreshnessBench.run(new FreshnessBench.Options(
                                    ("./bench/run " + String.join(" ", args)).trim(),
                                    freshnessRates,
                                    freshnessWarmUp,
                                    freshnessPhase)));
                case "scale" ->
                    results.writeSection(
                            SCALE_SECTION,
                            ScaleBench.run(
                                    new ScaleBench.Options(
                                            ("./bench/run " + String.join(" ", args)).trim(),
                                            scaleParts,
                                            scaleDayDevices,
                                            scaleWeekDevices,
                                            scaleCheckpointMillis,
                                            scaleBefore,
                                            scaleFrom),
                                    benchDir));
                case "archive" ->
                    results.writeSection(
                            ARCHIVE_SECTION,
                            archiveStore.equals("s3")
                                    ? ArchiveMarkerS3Bench.run(
                                            archiveRows,
                                            archiveFiles,
                                            benchDir.resolve("target"),
                                            ("./bench/run " + String.join(" ", args)).trim(),
                                            MachineFacts.loadAverage())
                                    : ArchiveMarkerBench.run(
                                            archiveRows,
                                            archiveFiles,
                                            benchDir.resolve("target"),
                                            ("./bench/run " + String.join(" ", args)).trim(),
                                            MachineFacts.loadAverage()));
                case "hot-device" ->
                    results.writeSection(
                            HOT_DEVICE_SECTION,
                            HotDeviceBench.run(
                                    new HotDeviceBench.Options(
                                            ("./bench/run " + String.join(" ", args)).trim(), hotDeviceMinutes),
                                    benchDir));
                case "write-units" -> results.writeSection(WRITE_UNITS_SECTION, WriteUnitsBench.run());
                default ->
                    throw new IllegalArgumentException("unknown benchmark " + part + "; expected one of " + ALL
                            + ", archive, hot-device, write-units");
            }
        }
        Path written = null;
        if (SPLICED.keySet().containsAll(only)) {
            for (String part : only) {
                written = results.spliceSection(SPLICED.get(part));
            }
        } else {
            written = results.assemble(header());
        }
        BenchLog.log("wrote " + written.toAbsolutePath());
        System.exit(0);
    }

    private static String header() {
        return "# period-tables benchmarks\n\n"
                + "Written by `./bench/run` (see bench/README-section.md). Not part of the test suite.\n"
                + "Sections may come from separate invocations; each states its own load average.\n\n"
                + "## Machine\n\n" + MachineFacts.markdown();
    }
}
