package io.periodtables.emulators;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An emulator's child process (a node emulator, or {@link S3Emulator}'s JVM) as {@link Dynalite}
 * talks to it: commands go in as lines on its standard input, its {@code LISTENING}/{@code STOPPED}
 * lines come back as events, everything else it prints goes to this JVM's log. Closing its standard input ends it,
 * which is also what happens
 * when this JVM dies.
 */
final class NodeProcess {
    private static final Logger LOG = LoggerFactory.getLogger(NodeProcess.class);

    private final Process process;
    private final String name;
    private final Logger output;
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();

    NodeProcess(Process process, String name) {
        this(process, name, LOG);
    }

    /** {@code output}: where the process's own lines go, so a log configuration can route one emulator's apart. */
    NodeProcess(Process process, String name, Logger output) {
        this.process = process;
        this.name = name;
        this.output = output;
        readOutput();
    }

    long pid() {
        return process.pid();
    }

    void command(String line) {
        try {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(name + " is gone", e);
        }
    }

    /** Waits for the process to print {@code event}; fails when it exits or {@code bound} passes first. */
    void await(String event, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        try {
            while (true) {
                String next = events.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (next == null || next.equals("EXIT")) {
                    throw new IllegalStateException(name
                            + (next == null
                                    ? " did not report " + event + " within " + bound
                                    : " exited (see the log above)"));
                }
                if (next.equals(event)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + name, e);
        }
    }

    /** Closes its standard input, which ends it; forcibly when it has not ended 10 s later. */
    void close() {
        try {
            process.getOutputStream().close();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    private void readOutput() {
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader lines = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                            if (line.startsWith("LISTENING") || line.equals("STOPPED")) {
                                events.add(line.split(" ")[0]);
                            } else {
                                output.info("[{}] {}", name, line);
                            }
                        }
                    } catch (IOException e) {
                        LOG.debug("{}: output ended", name, e);
                    }
                    events.add("EXIT");
                },
                name.replace(' ', '-') + "-output");
        reader.setDaemon(true);
        reader.start();
    }
}
