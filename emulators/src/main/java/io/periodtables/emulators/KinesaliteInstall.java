package io.periodtables.emulators;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Finds the project-local kinesalite install ({@code emulators/kinesalite}: our {@code launch.js},
 * the pinned {@code package-lock.json} and {@code node_modules}) and runs {@code npm ci} there if
 * the Maven build has not done it yet.
 *
 * <p>The folder is, in this order: the system property {@value #DIR_PROPERTY}, the environment
 * variable {@value #DIR_ENV}, or found by walking up from the working directory (any module of the
 * repository, or its root).
 */
final class KinesaliteInstall {
    private static final Logger LOG = LoggerFactory.getLogger(KinesaliteInstall.class);
    static final String DIR_PROPERTY = "periodtables.kinesalite.dir";
    static final String DIR_ENV = "PERIOD_TABLES_KINESALITE_DIR";
    private static final String LAUNCHER = "launch.js";

    private KinesaliteInstall() {
    }

    /** The folder holding {@code launch.js} and an installed {@code node_modules/kinesalite}. */
    static synchronized Path ready() {
        Path dir = locate();
        if (!Files.exists(dir.resolve("node_modules/kinesalite/package.json"))) {
            install(dir);
        }
        return dir;
    }

    private static Path locate() {
        Optional<String> configured = Optional.ofNullable(System.getProperty(DIR_PROPERTY))
                .or(() -> Optional.ofNullable(System.getenv(DIR_ENV)));
        if (configured.isPresent()) {
            Path dir = Path.of(configured.get()).toAbsolutePath();
            if (!Files.exists(dir.resolve(LAUNCHER))) {
                throw new IllegalStateException("no " + LAUNCHER + " in " + dir + " (from " + DIR_PROPERTY + "/" + DIR_ENV + ")");
            }
            return dir;
        }
        for (Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath(); dir != null; dir = dir.getParent()) {
            for (Path candidate : new Path[] {dir.resolve("kinesalite"), dir.resolve("emulators/kinesalite")}) {
                if (Files.exists(candidate.resolve(LAUNCHER))) {
                    return candidate;
                }
            }
        }
        throw new IllegalStateException("cannot find emulators/kinesalite/" + LAUNCHER + " above "
                + System.getProperty("user.dir") + "; set -D" + DIR_PROPERTY + "=<dir>");
    }

    /** {@code npm ci} under a file lock, so that JVMs starting at the same time install once. */
    private static void install(Path dir) {
        try (FileChannel channel = FileChannel.open(dir.resolve(".install.lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock ignored = channel.lock()) {
            if (Files.exists(dir.resolve("node_modules/kinesalite/package.json"))) {
                return;
            }
            LOG.info("installing kinesalite with npm ci in {}", dir);
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
            throw new IllegalStateException("interrupted installing kinesalite in " + dir, e);
        }
    }
}
