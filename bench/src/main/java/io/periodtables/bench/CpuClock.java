package io.periodtables.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Wall time, this JVM's process CPU time (all threads, GC and JIT included) and, of it, the time
 * HotSpot's JIT compilers spent, in seconds. Compilation is a warm-up cost: a job that runs for
 * hours pays it once, a benchmark run of seconds pays much of it inside its measurement.
 */
final class CpuClock {

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

    private final long wallStart = System.nanoTime();
    private final long cpuStart = OS.getProcessCpuTime();
    private final long jitStartMillis = JIT.getTotalCompilationTime();

    double wallSeconds() {
        return (System.nanoTime() - wallStart) / 1e9;
    }

    double cpuSeconds() {
        return (OS.getProcessCpuTime() - cpuStart) / 1e9;
    }

    /** Time the JIT compiler threads spent compiling since this clock started (HotSpot's accumulated compile time). */
    double jitSeconds() {
        return (JIT.getTotalCompilationTime() - jitStartMillis) / 1e3;
    }
}
