package io.periodtables.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Wall time, this JVM's process CPU time (all threads, GC and JIT included) and, of it, the CPU
 * time of HotSpot's JIT compiler threads, in seconds. Compilation is a warm-up cost: a job that
 * runs for hours pays it once, a benchmark run of seconds pays much of it inside its measurement.
 * The compiler threads' CPU comes from Linux's {@code /proc/self/task} (0 elsewhere); bench/run
 * keeps those threads alive ({@code -XX:-UseDynamicNumberOfCompilerThreads}) so none of it is lost.
 */
public final class CpuClock {

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    /** Linux's clock ticks per second for thread CPU times in /proc. */
    private static final double TICKS_PER_SECOND = 100.0;

    private final long wallStart = System.nanoTime();
    private final long cpuStart = OS.getProcessCpuTime();
    private final long jitStartTicks = compilerTicks();

    public double wallSeconds() {
        return (System.nanoTime() - wallStart) / 1e9;
    }

    public double cpuSeconds() {
        return (OS.getProcessCpuTime() - cpuStart) / 1e9;
    }

    /** CPU seconds of the JIT compiler threads since this clock started. */
    public double jitSeconds() {
        return (compilerTicks() - jitStartTicks) / TICKS_PER_SECOND;
    }

    /** User and system clock ticks of this JVM's C1 and C2 compiler threads so far. */
    private static long compilerTicks() {
        long ticks = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    if (Files.readString(task.resolve("comm")).matches("C[12] CompilerThre.*\\s*")) {
                        String stat = Files.readString(task.resolve("stat"));
                        String[] fields =
                                stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
                        ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
                    }
                } catch (IOException threadEnded) {
                    // a thread that ended between listing and reading
                }
            }
        } catch (IOException | UnsupportedOperationException notLinux) {
            return 0;
        }
        return ticks;
    }
}
