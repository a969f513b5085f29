package io.periodtables.bench;

/**
 * The bench's progress lines: each on standard output with a {@code [bench]} prefix, flushed at
 * once, so a long run shows where it is and its log can be read beside the JVM's own lines.
 */
public final class BenchLog {

    private BenchLog() {}

    /** Prints {@code line} as one progress line. */
    public static void log(String line) {
        System.out.println("[bench] " + line);
        System.out.flush();
    }
}
