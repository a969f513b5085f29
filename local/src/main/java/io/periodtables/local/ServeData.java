package io.periodtables.local;

import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.emulators.Dynalite;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * {@code ./run-local --serve}: dynalite on the last local run's data ({@link Dynalite#LOCAL_RUN_DATA})
 * until Enter, Ctrl-C or SIGTERM (without a terminal on stdin, until a signal), with {@link
 * SampleQueries#RUN_CONFIG} pointed at it, so that the query commands a run printed work after the
 * run's own dynalite has ended with it. It holds the {@link DataLock}: it refuses to start beside a
 * run or another {@code --serve}, and a run refuses to start beside it. The query CLI does not start
 * it itself: only the local run uses the emulators.
 */
final class ServeData {
    private ServeData() {}

    static void serve(StopSignal stop) throws Exception {
        Path data = Dynalite.LOCAL_RUN_DATA;
        try {
            if (Files.isDirectory(LocalRunner.WORK_DIR)) {
                DataLock.take(LocalRunner.WORK_DIR, "./run-local --serve");
            }
        } catch (DataLock.HeldElsewhere e) {
            System.err.println(
                    e.what.equals("./run-local --serve")
                            ? "Nothing more to serve: " + e.holder() + " already serves " + data + " and "
                                    + SampleQueries.RUN_CONFIG + " points at it"
                            : "Nothing served: " + e.holder() + " has " + data + " and its own dynalite serves"
                                    + " it while it runs (its summary prints the endpoint); --serve after it ends");
            System.exit(1);
        }
        if (!Files.isDirectory(data) || !Files.isRegularFile(SampleQueries.RUN_CONFIG)) {
            throw new ConfigException(
                    "serve",
                    "Nothing to serve: no " + data + " and " + SampleQueries.RUN_CONFIG
                            + " here; ./run-local writes them");
        }
        try (Dynalite dynamoDb = Dynalite.launcher()
                .log(LocalRunner.WORK_DIR.resolve("dynalite.log"))
                .dataDir(data)
                .start()) {
            pointRunConfigAt(dynamoDb.endpoint().toString());
            System.out.println("dynalite (pid " + dynamoDb.pid() + ") serves the local run's data in " + data + " at "
                    + dynamoDb.endpoint() + "; " + SampleQueries.RUN_CONFIG
                    + " points there, so the run's query commands work. Enter, Ctrl-C or SIGTERM stops it.");
            stop.awaitEnterOrSignal(false);
        }
    }

    private static void pointRunConfigAt(String endpoint) {
        Path file = SampleQueries.RUN_CONFIG;
        Properties keys = new Properties();
        try {
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                keys.load(in);
            }
            keys.setProperty(ConfigKeys.DYNAMODB_ENDPOINT.name(), endpoint);
            try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                keys.store(out, "the configuration of the last ./run-local, for ./query/run-query --config");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot update " + file, e);
        }
    }
}
