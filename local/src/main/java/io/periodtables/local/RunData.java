package io.periodtables.local;

import io.periodtables.core.config.ConfigException;
import io.periodtables.emulators.Dynalite;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * Which run the local run's data belongs to: {@value #NAME} in {@code .flink-local} names the run
 * (by its start, {@link RunSettings#run}) whose tables ({@link Dynalite#LOCAL_RUN_DATA}) and S3
 * emulator objects ({@link LocalS3#DATA}) are there, and the last savepoint it took. A new run
 * empties both directories and names itself, once every check that can refuse it has passed; a
 * resume runs on its own run's data only.
 *
 * <p>Resuming an older run's savepoint after a newer run replaced the data would continue that
 * run's state on the newer run's tables: its own tables gone, the newer run's listed as its, periods
 * it had filled refilled from the savepoint's position. Such a resume is refused rather than each
 * run's data kept apart: one data directory keeps {@code --serve}, the printed queries and {@code
 * .flink-local/run.properties} meaning "the last run's data", and needs no rule for when an old
 * run's copy may go.
 */
final class RunData {
    static final String NAME = "data-run.properties";

    private static final String RUN = "run";
    private static final String SAVEPOINT = "savepoint";

    private RunData() {}

    /**
     * Refuses a resume whose savepoint is not of the run whose data {@code .flink-local} holds. A
     * savepoint and data of a build that named no run pass: there is nothing to compare.
     *
     * @throws ConfigException naming {@code from-savepoint}, one line saying which run the data holds and what to do
     */
    static void checkResume(Path workDir, RunSettings run) {
        Optional<Properties> data = read(workDir);
        if (data.isEmpty() && run.run == null) {
            return;
        }
        String holds = data.map(p -> p.getProperty(RUN)).orElse(null);
        if (Objects.equals(holds, run.run)) {
            return;
        }
        String last = data.map(p -> p.getProperty(SAVEPOINT))
                .map(uri -> Path.of(URI.create(uri)).toString())
                .orElse(null);
        String savepoint = Path.of(URI.create(run.fromSavepoint)).toString();
        String savepointRun = run.run == null ? "" : " (of the run started " + run.run + ")";
        if (holds == null) {
            throw new ConfigException(
                    "from-savepoint",
                    "Cannot resume " + savepoint + savepointRun + ": " + workDir
                            + " holds no data of that run (no " + NAME
                            + "); start a new run without --from-savepoint (it starts empty)");
        }
        throw new ConfigException(
                "from-savepoint",
                "Cannot resume " + savepoint + savepointRun + ": " + workDir
                        + " holds the data of another run, started " + holds
                        + ", which replaced that run's; "
                        + (last == null
                                ? "that run took no savepoint: start a new run without --from-savepoint (it starts"
                                        + " empty)"
                                : "resume it with --from-savepoint " + last
                                        + ", or start a new run without --from-savepoint (it starts empty)"));
    }

    /** Empties the data directories for the new run {@code run} and names it as their run. */
    static void startFresh(Path workDir, String run) {
        try {
            LocalRunner.deleteRecursively(workDir.resolve(Dynalite.LOCAL_RUN_DATA.getFileName()));
            LocalRunner.deleteRecursively(workDir.resolve(LocalS3.DATA.getFileName()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot empty the last run's data in " + workDir, e);
        }
        write(workDir, run, null);
    }

    /** Records {@code savepoint} as the last one of the data's run. */
    static void savedAt(Path workDir, String run, String savepoint) {
        if (run != null) {
            write(workDir, run, savepoint);
        }
    }

    private static void write(Path workDir, String run, String savepoint) {
        Properties keys = new Properties();
        keys.setProperty(RUN, run);
        if (savepoint != null) {
            keys.setProperty(SAVEPOINT, savepoint);
        }
        Path file = workDir.resolve(NAME);
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            keys.store(out, "the ./run-local run whose data is in dynamodb/ and s3/ here; only its savepoints resume");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static Optional<Properties> read(Path workDir) {
        Path file = workDir.resolve(NAME);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        Properties keys = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            keys.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return Optional.of(keys);
    }
}
