package io.periodtables.emulators;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the project-local install of the node emulators ({@code emulators/node}: our launchers
 * {@code dynalite.js} and {@code kinesalite.js}, the pinned {@code package-lock.json} and
 * {@code node_modules}) and runs {@code npm ci} there if the Maven build has not done it yet.
 *
 * <p>The folder is, in this order: the system property {@value #DIR_PROPERTY}, the environment
 * variable {@value #DIR_ENV}, or found by walking up from the working directory (any module of the
 * repository, or its root).
 */
public final class NodeEmulators {
    private static final Logger LOG = LoggerFactory.getLogger(NodeEmulators.class);
    public static final String DIR_PROPERTY = "periodtables.node-emulators.dir";
    static final String DIR_ENV = "PERIOD_TABLES_NODE_EMULATORS_DIR";
    private static final String MARKER = "dynalite.js";
    private static final List<String> PACKAGES = List.of("dynalite", "kinesalite", "leveldown");

    private NodeEmulators() {}

    /** The folder holding the launchers and an installed {@code node_modules}. */
    static synchronized Path ready() {
        Path dir = locate();
        if (!installed(dir)) {
            install(dir);
        }
        return dir;
    }

    /** The folder, found as described above; for a child process that runs elsewhere. */
    public static Path dir() {
        return locate();
    }

    private static boolean installed(Path dir) {
        return PACKAGES.stream()
                .allMatch(
                        p -> Files.exists(dir.resolve("node_modules").resolve(p).resolve("package.json")));
    }

    private static Path locate() {
        Optional<String> configured = Optional.ofNullable(System.getProperty(DIR_PROPERTY))
                .or(() -> Optional.ofNullable(System.getenv(DIR_ENV)));
        if (configured.isPresent()) {
            Path dir = Path.of(configured.get()).toAbsolutePath();
            if (!Files.exists(dir.resolve(MARKER))) {
                throw new IllegalStateException(
                        "no " + MARKER + " in " + dir + " (from " + DIR_PROPERTY + "/" + DIR_ENV + ")");
            }
            return dir;
        }
        for (Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath(); dir != null; dir = dir.getParent()) {
            for (Path candidate : new Path[] {dir.resolve("node"), dir.resolve("emulators/node")}) {
                if (Files.exists(candidate.resolve(MARKER))) {
                    return candidate;
                }
            }
        }
        throw new IllegalStateException("cannot find emulators/node/" + MARKER + " above "
                + System.getProperty("user.dir") + "; set -D" + DIR_PROPERTY + "=<dir>");
    }

    /** {@code npm ci} under a file lock, so that JVMs starting at the same time install once. */
    private static void install(Path dir) {
        try (FileChannel channel = FileChannel.open(
                        dir.resolve(".install.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock ignored = channel.lock()) {
            if (installed(dir)) {
                return;
            }
            LOG.info("installing the node emulators with npm ci in {}", dir);
            Process npm = new ProcessBuilder("npm", "ci", "--omit=optional", "--no-audit", "--no-fund")
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("npm-ci.log").toFile())
                    .start();
            if (!npm.waitFor(5, TimeUnit.MINUTES) || npm.exitValue() != 0) {
                npm.destroyForcibly();
                throw new IllegalStateException("npm ci failed in " + dir + ", see " + dir.resolve("npm-ci.log"));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run npm ci in " + dir + " (are node and npm on the PATH?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted installing the node emulators in " + dir, e);
        }
    }
}
