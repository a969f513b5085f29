package io.periodtables.local;

import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.FidelityLayer;
import io.periodtables.emulators.S3Emulator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;
import org.apache.flink.annotation.VisibleForTesting;

/**
 * The local run: the real topology on a MiniCluster (Web UI on http://127.0.0.1:8081), with
 * dynalite (a node process) unless an endpoint is configured, and the synthetic fleet as
 * source by default. Prints a status line about once a second and, at the end, a summary.
 *
 * <p>Arguments: the job's {@code --key value} configuration, plus {@code --duration PT30S} for
 * a bounded run (default: until the source ends or Ctrl-C), {@code --from-savepoint PATH} to
 * resume a run with the settings saved with it ({@link RunSettings}: before a lone {@code --}, the
 * launcher's demo defaults), {@code --serve} to serve the last run's data ({@link ServeData}).
 * Every setting is checked before anything is deleted or started. The end of a run, bounded or by Ctrl-C, stops the
 * source, lets the pipeline drain, takes a savepoint under {@code .flink-local/savepoints} and
 * prints the summary. The embedded DynamoDB ({@link Dynalite}) keeps the tables in LevelDB files in
 * {@link Dynalite#LOCAL_RUN_DATA} (as fast as in memory on the demo), so that a run resumed from
 * its savepoint finds its tables; a run without {@code --from-savepoint} starts with empty ones. Its fidelity layer
 * enforces
 * DynamoDB's limits as in every test ({@code --dynamodb.limits off} or a list turns some off). On a terminal,
 * the emulator keeps serving after the summary until Enter or Ctrl-C, so the printed
 * {@code query} command works.
 *
 * <p>{@code --source kinesis} without a {@code kinesis.stream-arn} runs on a local Kinesis
 * ({@link LocalKinesis}): kinesalite with a stream of {@code --stream-shards} shards (default
 * sized from the fleet's rate, {@link LocalKinesis#shardsFor}) that the fleet is put into at {@code generator.rate}.
 */
public final class LocalRunner {

    /** Where the local run keeps its savepoints, logs and the embedded DynamoDB's data. */
    static final Path WORK_DIR = Dynalite.LOCAL_RUN_DATA.getParent();

    /** The directory the user ran {@code ./run-local} in (the script runs Java in the repository). */
    static final String CWD_PROPERTY = "periodtables.local.cwd";

    /** When true, the emulators keep serving after the summary until Enter without a terminal too. */
    @VisibleForTesting
    static final String HOLD_PROPERTY = "periodtables.local.hold";

    private LocalRunner() {}

    public static void main(String[] args) throws Exception {
        // The Web UI's log tab and Flink's own start-up check read this; log4j2-local.properties writes it.
        System.setProperty(
                "log.file",
                System.getProperty("log.file", WORK_DIR.resolve("flink.log").toString()));
        // Hadoop's S3A (an s3:// archive) brings AWS SDK v1, which prints a stack trace to announce its end of support.
        System.setProperty("aws.java.v1.disableDeprecationAnnouncement", "true");
        List<String> userArgs = RunSettings.userArgs(args);
        if (userArgs.contains("--help") || userArgs.contains("-h")) {
            System.out.println(RunSettings.USAGE);
            System.exit(0);
        }
        if (userArgs.contains("--serve")) {
            try {
                if (!userArgs.equals(List.of("--serve"))) {
                    throw new ConfigException("serve", "Invalid argument: --serve takes no other option");
                }
                ServeData.serve(StopSignal.install());
            } catch (ConfigException e) {
                fail(e.getMessage());
            }
            System.exit(0);
        }
        RunSettings run = null;
        PeriodTablesConfig config = null;
        boolean localKinesis = false;
        boolean localData = false;
        Optional<String> bucket = Optional.empty();
        // Every check that can refuse the run, the topology's included, comes before anything is deleted or started.
        try {
            run = RunSettings.parse(
                    args, Path.of(System.getProperty(CWD_PROPERTY, "")).toAbsolutePath());
            try {
                config = ConfigLoader.fromMap(run.settings, true);
            } catch (ConfigException e) {
                if (!e.key().equals(ConfigKeys.KINESIS_STREAM_ARN.name())) {
                    throw e;
                }
                // --source kinesis without a stream: the run's own kinesalite and stream.
                config = ConfigLoader.fromMap(LocalKinesis.settingsFor(run.settings), true);
                localKinesis = true;
                checkRealTimeFleet(config);
            }
            if (run.streamShards != null && !localKinesis) {
                throw new ConfigException(
                        "stream-shards",
                        "Invalid argument: --stream-shards sizes the run's own Kinesis stream, which only --source"
                                + " kinesis without a kinesis.stream-arn starts; leave it out or add --source kinesis");
            }
            if (config.get(ConfigKeys.SOURCE) == ConfigKeys.SourceKind.GENERATOR
                    && config.find(ConfigKeys.GENERATOR_START).isEmpty()) {
                // "now" once, saved with the savepoint's settings: the fleet's reading n is at start + n / rate *
                // speedup, and its n is restored, so a resume continues this event-time line instead of
                // starting one at its own now (a jump by the whole first run and the pause between).
                String start = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
                run.settings.put(ConfigKeys.GENERATOR_START.name(), start);
                config = config.with(ConfigKeys.GENERATOR_START, start);
            }
            bucket = LocalS3.emulatedBucket(config, run.options, run.fromSavepoint);
            LocalS3.initializeFileSystems(config, run.options);
            localData = config.startsEmbeddedDynamoDb() || bucket.isPresent();
            if (localData) {
                // before the topology's check, whose INFO lines would come ahead of these refusals
                lockData(config, run.fromSavepoint);
                if (run.fromSavepoint != null) {
                    RunData.checkResume(WORK_DIR, run);
                }
            }
            ArchiveDirectory.check(config);
            LocalCluster.check(config);
        } catch (ConfigException e) {
            fail(e.getMessage());
        }
        Files.createDirectories(WORK_DIR);
        if (localData && run.fromSavepoint == null) {
            // Every check has passed: only now does a new run empty the last run's data.
            RunData.startFresh(WORK_DIR, run.run);
        }
        Duration duration = run.duration;
        String fromSavepoint = run.fromSavepoint;
        if (run.origin != null) {
            System.out.println("Resuming from " + fromSavepoint + " with the settings of " + run.origin);
        }
        if (run.options
                .getOrDefault(LocalOptions.STATE_BACKEND, LocalOptions.HASHMAP)
                .equals(LocalOptions.ROCKSDB)) {
            System.out.println("State backend: RocksDB (EmbeddedRocksDBStateBackend), incremental checkpoints in "
                    + WORK_DIR.resolve("checkpoints"));
        }
        StopSignal stop = StopSignal.install();
        LocalCluster.Outcome outcome;
        // dynalite starts in its own process while the MiniCluster starts in this one.
        CompletableFuture<Dynalite> dynamoDb = null;
        CompletableFuture<LocalKinesis> kinesis = null;
        CompletableFuture<S3Emulator> s3 = null;
        S3Emulator archiveS3 = null;
        try {
            if (bucket.isPresent()) {
                String name = bucket.get();
                s3 = CompletableFuture.supplyAsync(() -> LocalS3.start(name));
            }
            if (localKinesis) {
                int shards = run.streamShards != null ? run.streamShards : LocalKinesis.shardsFor(config);
                kinesis = CompletableFuture.supplyAsync(() -> LocalKinesis.start(shards));
            }
            if (config.startsEmbeddedDynamoDb()) {
                Set<String> limits = config.get(ConfigKeys.DYNAMODB_LIMITS);
                dynamoDb = CompletableFuture.supplyAsync(() -> startDynamoDb(limits));
            }
            if (s3 != null) {
                // Flink's file systems are initialized once, before the MiniCluster starts.
                archiveS3 = s3.join();
                System.out.println("S3 emulator (s3proxy, pid " + archiveS3.pid() + ") at " + archiveS3.endpoint()
                        + ", bucket " + bucket.get() + ", objects in " + LocalS3.DATA
                        + (fromSavepoint == null ? "" : " (the resumed run's archive goes on there)"));
            }
            CompletableFuture<Dynalite> started = dynamoDb;
            CompletableFuture<LocalKinesis> stream = kinesis;
            outcome = new LocalCluster(stop, LocalOptions.stateBackend(run.options, WORK_DIR.resolve("checkpoints")))
                    .run(
                            config,
                            started == null ? null : () -> started.join().endpoint(),
                            stream == null ? null : stream::join,
                            duration,
                            fromSavepoint);
            if (outcome.savepoint() != null) {
                run.saveWith(outcome.savepoint());
                if (localData) {
                    RunData.savedAt(WORK_DIR, run.run, outcome.savepoint());
                }
            }
            new TableSummary(outcome.config(), dynamoDb != null, archiveS3).print(outcome, System.out);
            if (kinesis != null) {
                System.out.println(kinesis.join().summary(outcome.config()));
            }
            boolean hold = System.console() != null || Boolean.getBoolean(HOLD_PROPERTY);
            if ((dynamoDb != null || archiveS3 != null) && hold) {
                System.out.println((dynamoDb == null
                                ? ""
                                : "dynalite keeps serving " + dynamoDb.join().endpoint())
                        + (dynamoDb != null && archiveS3 != null ? " and " : "")
                        + (archiveS3 == null ? "" : "the S3 emulator " + archiveS3.endpoint())
                        + " for the queries above; Enter or Ctrl-C stops "
                        + (dynamoDb != null && archiveS3 != null ? "them." : "it."));
                stop.awaitEnterOrSignal(true);
            }
        } catch (CompletionException e) {
            String what = failed(dynamoDb, s3);
            System.err.println("Cannot start " + what + ": " + e.getCause().getMessage()
                    + (what.equals("dynalite") ? lastLine(WORK_DIR.resolve("dynalite.log")) : ""));
            outcome = null;
        } finally {
            if (s3 != null && !s3.isCompletedExceptionally()) {
                s3.join().close();
            }
            if (kinesis != null && !kinesis.isCompletedExceptionally()) {
                kinesis.join().close();
            }
            if (dynamoDb != null && !dynamoDb.isCompletedExceptionally()) {
                dynamoDb.join().close();
            }
        }
        // Flink and the SDK leave non-daemon threads behind; the run is over.
        System.exit(outcome == null || outcome.failed() ? 1 : 0);
    }

    private static String failed(CompletableFuture<Dynalite> dynamoDb, CompletableFuture<S3Emulator> s3) {
        if (dynamoDb != null && dynamoDb.isCompletedExceptionally()) {
            return "dynalite";
        }
        return s3 != null && s3.isCompletedExceptionally() ? "the S3 emulator" : "kinesalite";
    }

    /** Where an emulator's log went to a file, not above: its last line, which says why it ended. */
    private static String lastLine(Path log) {
        try (var lines = Files.lines(log)) {
            return lines.filter(l -> !l.isBlank())
                    .reduce((a, b) -> b)
                    .map(l -> "; " + log + " ends: " + l.strip())
                    .orElse("");
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }

    /**
     * The data directories are this run's alone: a new run empties them, a resume's emulators use them.
     * Another holder (a run, {@code --serve}) refuses the run: one line, exit status 1.
     */
    private static void lockData(PeriodTablesConfig config, String fromSavepoint) {
        try {
            DataLock.take(WORK_DIR, "a ./run-local run");
        } catch (DataLock.HeldElsewhere e) {
            System.err.println("Cannot start: " + e.holder() + " has the local run's data in "
                    + (config.startsEmbeddedDynamoDb() ? Dynalite.LOCAL_RUN_DATA : LocalS3.DATA)
                    + ", which this run would "
                    + (fromSavepoint == null ? "delete (a new run starts empty)" : "need to itself")
                    + "; stop it first (Enter or Ctrl-C where it runs, or kill " + e.pid + ")");
            System.exit(1);
        }
    }

    private static Dynalite startDynamoDb(Set<String> limits) {
        Path data = Dynalite.LOCAL_RUN_DATA;
        Dynalite.Launcher launcher = Dynalite.launcher()
                .limits(limits.stream()
                        .map(l -> FidelityLayer.Limit.valueOf(
                                l.toUpperCase(Locale.ROOT).replace('-', '_')))
                        .collect(Collectors.toSet()))
                .log(WORK_DIR.resolve("dynalite.log"))
                .dataDir(data);
        Dynalite dynamoDb = launcher.start();
        System.out.println("dynalite (pid " + dynamoDb.pid() + ") at " + dynamoDb.endpoint()
                + ", data in " + data + "; DynamoDB limits enforced: "
                + (limits.isEmpty() ? "none (--dynamodb.limits off)" : String.join(", ", limits)));
        return dynamoDb;
    }

    /** The Kinesis source holds its watermark at the wall clock: a fed fleet must not run ahead of it. */
    private static void checkRealTimeFleet(PeriodTablesConfig config) {
        if (config.get(ConfigKeys.GENERATOR_SPEEDUP) != 1.0) {
            throw ConfigException.invalid(
                    ConfigKeys.GENERATOR_SPEEDUP.name(),
                    config.asText().get(ConfigKeys.GENERATOR_SPEEDUP.name()),
                    "expected 1 with --source kinesis (the Kinesis source holds event time at the wall clock)");
        }
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (var paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void fail(String message) {
        System.err.println(message);
        System.exit(2);
    }
}
