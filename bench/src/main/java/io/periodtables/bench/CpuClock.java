package io.periodtables.bench;

import java.lang.management.ManagementFactory;

/** Wall time and this JVM's process CPU time (all threads, GC and JIT included), in seconds. */
final class CpuClock {

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private final long wallStart = System.nanoTime();
    private final long cpuStart = OS.getProcessCpuTime();

    double wallSeconds() {
        return (System.nanoTime() - wallStart) / 1e9;
    }

    double cpuSeconds() {
        return (OS.getProcessCpuTime() - cpuStart) / 1e9;
    }
}
