package io.periodtables.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the CPU goes, from a JFR recording's {@code jdk.ExecutionSample} events: samples by
 * thread, by component (the first non-JDK frame from the top of the stack, so {@code HashMap}
 * work counts for the code that called it), and the methods most often on the stack.
 */
public final class JfrSummary {

    private static final List<String[]> COMPONENTS = List.of(
            new String[] {"io.periodtables.job.", "period-tables job (parse, windows)"},
            new String[] {"io.periodtables.sink.", "period-tables sink (items, sizes, batches)"},
            new String[] {"io.periodtables.rotation.", "period-tables rotation"},
            new String[] {"io.periodtables.core.", "period-tables core (keys, table names, items)"},
            new String[] {"io.periodtables.bench.", "benchmark harness (instant backend, source)"},
            new String[] {"io.periodtables.", "period-tables other"},
            new String[] {"com.fasterxml.jackson.", "Jackson (JSON)"},
            new String[] {"software.amazon.awssdk.http.nio.netty.", "AWS SDK Netty HTTP client"},
            new String[] {"software.amazon.awssdk.protocols.", "AWS SDK JSON marshalling"},
            new String[] {"software.amazon.awssdk.auth.", "AWS SDK request signing"},
            new String[] {"software.amazon.awssdk.", "AWS SDK other (pipeline, models)"},
            new String[] {"io.netty.", "Netty"},
            new String[] {"org.apache.flink.connector.base.sink.", "Flink AsyncSinkWriter"},
            new String[] {"org.apache.flink.streaming.runtime.operators.windowing.", "Flink window operator"},
            new String[] {"org.apache.flink.runtime.state.", "Flink state backend"},
            new String[] {"org.apache.flink.runtime.io.", "Flink network stack"},
            new String[] {"org.apache.flink.", "Flink other"},
            new String[] {"org.apache.logging.", "logging"});

    private JfrSummary() {}

    public static String markdown(Path recording, int topMethods) throws IOException {
        Map<String, Integer> byThread = new HashMap<>();
        Map<String, Integer> byComponent = new HashMap<>();
        Map<String, Integer> onStack = new HashMap<>();
        Map<String, Integer> leaf = new HashMap<>();
        int total = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(recording)) {
            if (!event.getEventType().getName().equals("jdk.ExecutionSample")) {
                continue;
            }
            RecordedStackTrace stack = event.getStackTrace();
            if (stack == null) {
                continue;
            }
            total++;
            String thread = event.getThread("sampledThread") == null
                    ? "?"
                    : event.getThread("sampledThread").getJavaName();
            byThread.merge(threadKind(thread), 1, Integer::sum);
            byComponent.merge(component(stack.getFrames()), 1, Integer::sum);
            if (!stack.getFrames().isEmpty() && stack.getFrames().get(0).isJavaFrame()) {
                RecordedFrame top = stack.getFrames().get(0);
                leaf.merge(
                        top.getMethod().getType().getName() + "."
                                + top.getMethod().getName(),
                        1,
                        Integer::sum);
            }
            Set<String> seen = new HashSet<>();
            for (RecordedFrame frame : stack.getFrames()) {
                if (frame.isJavaFrame()) {
                    String method = frame.getMethod().getType().getName() + "."
                            + frame.getMethod().getName();
                    if (interesting(method) && seen.add(method)) {
                        onStack.merge(method, 1, Integer::sum);
                    }
                }
            }
        }
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "%,d CPU samples (JFR `jdk.ExecutionSample` every 10 ms).%n%n", total));
        md.append(table("thread", byThread, total, 12));
        md.append(table("component (first non-JDK frame from the top)", byComponent, total, 20));
        md.append(table("method on the stack (inclusive)", onStack, total, topMethods));
        md.append(table("method at the top of the stack (self)", leaf, total, 20));
        return md.toString();
    }

    private static boolean interesting(String method) {
        return method.startsWith("io.periodtables.")
                || method.startsWith("org.apache.flink.streaming.")
                || method.startsWith("org.apache.flink.connector.")
                || method.startsWith("software.amazon.awssdk.core.internal.http.")
                || method.startsWith("software.amazon.awssdk.protocols.")
                || method.startsWith("software.amazon.awssdk.auth.")
                || method.startsWith("software.amazon.awssdk.http.nio.netty.")
                || method.startsWith("com.fasterxml.");
    }

    private static String component(List<RecordedFrame> frames) {
        for (RecordedFrame frame : frames) {
            if (!frame.isJavaFrame()) {
                continue;
            }
            String type = frame.getMethod().getType().getName();
            if (type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun.")) {
                continue;
            }
            for (String[] c : COMPONENTS) {
                if (type.startsWith(c[0])) {
                    return c[1];
                }
            }
            return "other: " + type.substring(0, Math.max(type.lastIndexOf('.'), 0));
        }
        return "JDK only (I/O, GC-adjacent, threads)";
    }

    /** Thread name without numbers, so the subtasks and event-loop threads of one kind add up. */
    static String threadKind(String name) {
        return name.replaceAll("\\(\\d+/\\d+\\)", "(i/p)")
                .replaceAll("#\\d+", "#i")
                .replaceAll("-\\d+", "-i")
                .replaceAll("\\d+$", "i");
    }

    private static String table(String title, Map<String, Integer> counts, int total, int limit) {
        StringBuilder md = new StringBuilder("| " + title + " | samples | share |\n|---|---|---|\n");
        counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .limit(limit)
                .forEach(e -> md.append("| ")
                        .append(e.getKey().replace("|", "\\|"))
                        .append(" | ")
                        .append(e.getValue())
                        .append(String.format(
                                Locale.ROOT, " | %.1f %% |%n", 100.0 * e.getValue() / Math.max(total, 1))));
        return md.append('\n').toString();
    }

    public static void main(String[] args) throws IOException {
        System.out.println(markdown(Path.of(args[0]), args.length > 1 ? Integer.parseInt(args[1]) : 25));
    }
}
