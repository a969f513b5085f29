package io.periodtables.bench.e2e;

import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.BenchLog;
import io.periodtables.bench.Contenders;
import io.periodtables.bench.MachineFacts;
import io.periodtables.bench.Measurement;
import io.periodtables.bench.PrebuiltReadings;
import io.periodtables.bench.Tables;
import io.periodtables.emulators.Dynalite;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Where the client CPU of an end-to-end run goes, per reading (issue 58): the contenders of
 * {@link E2eBench} that read the same readings (the stock sink, the stock sink after the job's
 * JSON parse, the full job), one after the other per round, each run under a flight recording.
 * The JVM's own threads (JIT compiler, GC, VM, JFR) are measured from {@code /proc/self/task};
 * the rest of the process CPU is split by the run's CPU samples ({@code jdk.ExecutionSample}
 * every 10 ms, the main thread left out: it only waits for the job) by {@link CpuPurpose}, and
 * the allocated bytes ({@code jdk.ObjectAllocationSample}) the same way. Prints a table of
 * milliseconds of CPU per 1,000 readings (mean over the rounds); writes nothing to RESULTS.md:
 * {@code BENCH_MAIN=io.periodtables.bench.e2e.CpuBreakdown ./bench/run 100000 3} (readings per
 * run, rounds).
 */
final class CpuBreakdown {

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** The JVM's own threads, by the names Linux knows them by (15 characters at most). */
    private enum JvmThreads {
        JIT("JIT compiler threads"),
        GC("GC threads"),
        VM("VM thread and other JVM threads"),
        JFR("JFR's own threads (the measurement)");

        final String label;

        JvmThreads(String label) {
            this.label = label;
        }

        static JvmThreads of(String comm) {
            if (comm.matches("C[12] CompilerThre.*")) {
                return JIT;
            } else if (comm.startsWith("GC Thread") || comm.startsWith("G1 ")) {
                return GC;
            } else if (comm.startsWith("JFR ")) {
                return JFR;
            } else if (comm.startsWith("VM ") || comm.startsWith("Sweeper") || comm.startsWith("Monitor Deflat")) {
                return VM;
            }
            return null;
        }
    }

    /** One run's CPU by part, in seconds, and its allocated bytes by purpose. */
    private record Split(
            String contender,
            long readings,
            double cpuSeconds,
            Map<String, Double> seconds,
            Map<String, Double> bytes) {}

    private CpuBreakdown() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        System.out.println(run(n, rounds));
        System.exit(0);
    }

    static String run(int n, int rounds) throws Exception {
        String load = MachineFacts.loadAverage();
        List<Split> splits = new ArrayList<>();
        Path dir = Files.createDirectories(Path.of("bench", "target", "cpu-breakdown"));
        try (Dynalite dynamoDb = Tables.dynamoDb();
                DynamoDbClient admin = dynamoDb.syncClient();
                BenchCluster cluster = new BenchCluster()) {
            Profiler profiler = new Profiler(dir);
            Contenders contenders = new Contenders(cluster, dynamoDb, admin, n).measuredBy(profiler);
            PrebuiltReadings.set(contenders.fleet(), n);
            Contenders warmUp = new Contenders(cluster, dynamoDb, admin, Math.min(n, 50_000));
            for (int i = 0; i < 2; i++) {
                BenchLog.log("warm-up: " + warmUp.stockSink(0));
                BenchLog.log("warm-up: " + warmUp.stockSinkParsing(0));
                BenchLog.log("warm-up: " + warmUp.fullJob(0));
            }
            for (int round = 1; round <= rounds; round++) {
                for (String contender : List.of(Contenders.STOCK, Contenders.STOCK_PARSE, Contenders.JOB)) {
                    profiler.name = contender + "-" + round;
                    Measurement m = switch (contender) {
                        case Contenders.STOCK -> contenders.stockSink(round);
                        case Contenders.STOCK_PARSE -> contenders.stockSinkParsing(round);
                        default -> contenders.fullJob(round);
                    };
                    BenchLog.log(m.toString());
                    Split split = profiler.split(contender, n);
                    BenchLog.log(String.format(
                            Locale.ROOT,
                            "  %s: %.2f s CPU in the profiled window (measured %.2f s), load %s",
                            contender,
                            split.cpuSeconds(),
                            m.clientCpuSeconds(),
                            MachineFacts.loadAverage()));
                    splits.add(split);
                }
            }
        }
        return report(n, rounds, load, MachineFacts.loadAverage(), splits);
    }

    /** Records each measured window and splits its CPU. */
    private static final class Profiler implements Contenders.MeasuredWindow {
        private final Path dir;
        String name = "run";
        private Recording recording;
        private Map<JvmThreads, Long> ticksBefore;
        private long cpuBefore;
        private Instant from;
        private Instant to;
        private Map<JvmThreads, Long> ticksAfter;
        private long cpuAfter;

        Profiler(Path dir) {
            this.dir = dir;
        }

        @Override
        public void opened() {
            recording = new Recording();
            recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
            recording.enable("jdk.ObjectAllocationSample").with("throttle", "300/s");
            recording.start();
            ticksBefore = jvmTicks();
            cpuBefore = OS.getProcessCpuTime();
            from = Instant.now();
        }

        @Override
        public void closed() {
            to = Instant.now();
            cpuAfter = OS.getProcessCpuTime();
            ticksAfter = jvmTicks();
            recording.stop();
        }

        Split split(String contender, long readings) throws IOException {
            Path file = dir.resolve(name + ".jfr");
            recording.dump(file);
            recording.close();
            double cpu = (cpuAfter - cpuBefore) / 1e9;
            Map<String, Double> seconds = new LinkedHashMap<>();
            double jvm = 0;
            for (JvmThreads kind : JvmThreads.values()) {
                double s = (ticksAfter.getOrDefault(kind, 0L) - ticksBefore.getOrDefault(kind, 0L)) / 100.0;
                seconds.put(kind.label, s);
                jvm += s;
            }
            Map<CpuPurpose, Integer> samples = new EnumMap<>(CpuPurpose.class);
            Map<String, Double> bytes = new LinkedHashMap<>();
            int total = 0;
            for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
                String type = event.getEventType().getName();
                boolean execution = type.equals("jdk.ExecutionSample");
                if (!(execution || type.equals("jdk.ObjectAllocationSample"))
                        || event.getStartTime().isBefore(from)
                        || event.getStartTime().isAfter(to)
                        || event.getStackTrace() == null) {
                    continue;
                }
                CpuPurpose purpose = CpuPurpose.of(event.getStackTrace().getFrames());
                if (execution) {
                    String thread = event.getThread("sampledThread") != null
                            ? event.getThread("sampledThread").getJavaName()
                            : "?";
                    if (!"main".equals(thread)) {
                        samples.merge(purpose, 1, Integer::sum);
                        total++;
                    }
                } else {
                    bytes.merge(purpose.label(), (double) event.getLong("weight"), Double::sum);
                }
            }
            double java = Math.max(0, cpu - jvm);
            for (CpuPurpose purpose : CpuPurpose.values()) {
                seconds.put(purpose.label(), total == 0 ? 0 : java * samples.getOrDefault(purpose, 0) / total);
            }
            BenchLog.log("  " + name + ": " + total + " samples, " + samples);
            return new Split(contender, readings, cpu, seconds, bytes);
        }
    }

    /** CPU clock ticks (1/100 s) of the JVM's own threads so far, by kind. */
    private static Map<JvmThreads, Long> jvmTicks() {
        Map<JvmThreads, Long> ticks = new EnumMap<>(JvmThreads.class);
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    JvmThreads kind =
                            JvmThreads.of(Files.readString(task.resolve("comm")).strip());
                    if (kind != null) {
                        String stat = Files.readString(task.resolve("stat"));
                        String[] fields =
                                stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
                        ticks.merge(kind, Long.parseLong(fields[11]) + Long.parseLong(fields[12]), Long::sum);
                    }
                } catch (IOException threadEnded) {
                    // a thread that ended between listing and reading
                }
            }
        } catch (IOException notLinux) {
            return ticks;
        }
        return ticks;
    }

    private static String report(int n, int rounds, String loadBefore, String loadAfter, List<Split> splits) {
        List<String> contenders = List.of(Contenders.STOCK, Contenders.STOCK_PARSE, Contenders.JOB);
        StringBuilder md = new StringBuilder();
        md.append(String.format(
                Locale.ROOT,
                "CPU ms per 1,000 readings, mean of %d rounds of N = %,d (load average %s before, %s after):%n%n",
                rounds,
                n,
                loadBefore,
                loadAfter));
        md.append("| part |");
        contenders.forEach(c -> md.append(' ').append(c).append(" |"));
        md.append(" full-job − stock-sink |\n|---|");
        contenders.forEach(c -> md.append("---|"));
        md.append("---|\n");
        List<String> rows = new ArrayList<>();
        for (JvmThreads kind : JvmThreads.values()) {
            rows.add(kind.label);
        }
        for (CpuPurpose purpose : CpuPurpose.values()) {
            rows.add(purpose.label());
        }
        for (String row : rows) {
            md.append("| ").append(row).append(" |");
            for (String c : contenders) {
                md.append(String.format(
                        Locale.ROOT, " %.1f |", mean(splits, c, s -> s.seconds().getOrDefault(row, 0.0))));
            }
            md.append(String.format(
                            Locale.ROOT,
                            " %+.1f |",
                            mean(splits, Contenders.JOB, s -> s.seconds().getOrDefault(row, 0.0))
                                    - mean(
                                            splits,
                                            Contenders.STOCK,
                                            s -> s.seconds().getOrDefault(row, 0.0))))
                    .append('\n');
        }
        md.append("| **total** |");
        for (String c : contenders) {
            md.append(String.format(Locale.ROOT, " **%.1f** |", mean(splits, c, Split::cpuSeconds)));
        }
        md.append(String.format(
                Locale.ROOT,
                " %+.1f |%n",
                mean(splits, Contenders.JOB, Split::cpuSeconds) - mean(splits, Contenders.STOCK, Split::cpuSeconds)));
        md.append("\nAllocated MB per 1,000 readings by part (sampled):\n\n| part |");
        contenders.forEach(c -> md.append(' ').append(c).append(" |"));
        md.append("\n|---|");
        contenders.forEach(c -> md.append("---|"));
        md.append('\n');
        for (CpuPurpose purpose : CpuPurpose.values()) {
            md.append("| ").append(purpose.label()).append(" |");
            for (String c : contenders) {
                md.append(String.format(
                        Locale.ROOT,
                        " %.2f |",
                        mean(splits, c, s -> s.bytes().getOrDefault(purpose.label(), 0.0) / 1e9)));
            }
            md.append('\n');
        }
        return md.toString();
    }

    /** The mean over {@code contender}'s runs of {@code f} per 1,000 readings, in milliseconds (or MB). */
    private static double mean(List<Split> splits, String contender, java.util.function.ToDoubleFunction<Split> f) {
        return splits.stream()
                .filter(s -> s.contender().equals(contender))
                .mapToDouble(s -> f.applyAsDouble(s) * 1e6 / s.readings())
                .average()
                .orElse(Double.NaN);
    }
}
