package io.periodtables.local;

import io.periodtables.emulators.NodeEmulators;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A main class in a child JVM on the test's class path, in a given directory, its output in files. */
record ChildJvm(Process process, Path out, Path err) {

    static ChildJvm start(Path dir, Class<?> main, String... args) throws IOException {
        return start(dir, List.of(), main, args);
    }

    /** @param properties system properties for the child, {@code name=value} */
    static ChildJvm start(Path dir, List<String> properties, Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens",
                "java.base/java.util=ALL-UNNAMED",
                "--add-opens",
                "java.base/java.lang=ALL-UNNAMED",
                "--add-opens",
                "java.base/java.time=ALL-UNNAMED",
                "--add-opens",
                "java.base/java.nio=ALL-UNNAMED",
                "--add-opens",
                "java.base/sun.nio.ch=ALL-UNNAMED",
                "-Xmx1g",
                // the child runs elsewhere and would not find the emulators by walking up
                "-D" + NodeEmulators.DIR_PROPERTY + "=" + NodeEmulators.dir(),
                "-Dlog4j.configurationFile="
                        + (main == LocalRunner.class ? "log4j2-local.properties" : "log4j2.properties"),
                "-cp",
                System.getProperty("java.class.path")));
        properties.forEach(p -> command.add(command.size() - 2, "-D" + p));
        command.add(main.getName());
        command.addAll(List.of(args));
        Path out = Files.createTempFile("child", ".out");
        Path err = Files.createTempFile("child", ".err");
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        return new ChildJvm(builder.start(), out, err);
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    void awaitOutput(String text) throws Exception {
        awaitLines(text, 1);
    }

    /** Waits until {@code count} lines of the standard output contain {@code text}. */
    void awaitLines(String text, int count) throws Exception {
        while (stdout().lines().filter(l -> l.contains(text)).count() < count) {
            if (process.waitFor(100, TimeUnit.MILLISECONDS)) {
                throw new AssertionError("ended (exit " + process.exitValue() + ") before printing '" + text + "':\n"
                        + stdout() + stderr());
            }
        }
    }

    /**
     * Waits for the child to end: a bound against a hung child, not a speed target. A short run took
     * more than 3 minutes with six builds on two cores (load 35); the output is read before the files go.
     */
    void waitFor() throws Exception {
        if (!process.waitFor(8, TimeUnit.MINUTES)) {
            String out = stdout();
            destroy();
            throw new AssertionError("the child JVM did not end within 8 minutes:\n" + out);
        }
    }

    int exitCode() {
        return process.exitValue();
    }

    String stdout() throws IOException {
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    String stderr() throws IOException {
        return Files.readString(err, StandardCharsets.UTF_8);
    }

    void destroy() throws InterruptedException {
        process.destroyForcibly().waitFor();
        out.toFile().delete();
        err.toFile().delete();
    }
}
