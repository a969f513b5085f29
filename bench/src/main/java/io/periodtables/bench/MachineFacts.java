package io.periodtables.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** Date, cores, CPU model, memory, JVM and load average: the facts a benchmark number needs. */
public final class MachineFacts {

    private MachineFacts() {}

    static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException ignored) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    public static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + ", " + f[1] + ", " + f[2];
        } catch (IOException e) {
            return String.format(
                    Locale.ROOT,
                    "%.2f",
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }

    static String memory() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal")) {
                    long kb = Long.parseLong(line.replaceAll("\\D+", ""));
                    return String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // unknown
        }
        return "unknown";
    }

    /** A Markdown list of the machine facts. */
    public static String markdown() {
        return "- date: " + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME) + "\n"
                + "- nproc: " + Runtime.getRuntime().availableProcessors() + "\n"
                + "- CPU: " + cpuModel() + "\n"
                + "- memory: " + memory() + "\n"
                + "- JVM: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + "\n"
                + "- OS: " + System.getProperty("os.name") + " " + System.getProperty("os.version") + "\n"
                + "- load average (1, 5, 15 min) when written: " + loadAverage() + "\n";
    }
}
