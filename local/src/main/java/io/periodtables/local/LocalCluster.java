package io.periodtables.local;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.dynamodb.LatestTable;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.job.PeriodTablesTopology;
import io.periodtables.rotation.Rotation;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The local run's MiniCluster: submits the topology, prints the status line once a second
 * until the duration is over, the source ends or a stop is requested, then stops the job with
 * a draining savepoint: the source stops, every window fires, the sink flushes, so everything
 * that came in is written before the summary counts it.
 */
final class LocalCluster {

    /**
     * How the run ended and what it did.
     *
     * @param inBySeconds the readings the job had taken in when its {@code seconds} were over: with the
     *     Kinesis fleet, what it read while the fleet put (the rest it reads after the stop)
     */
    record Outcome(
            PeriodTablesConfig config,
            String ending,
            String savepoint,
            String failure,
            RunCounts counts,
            long inBySeconds,
            double seconds,
            double drainSeconds,
            Double firstTableSeconds) {
        boolean failed() {
            return failure != null;
        }
    }

    /** How long the fleet's first tables should last: about the time the job takes to warm up. */
    private static final Duration WARM_UP = Duration.ofSeconds(30);

    private final StopSignal stop;
    private final Configuration stateBackend;

    /** @param stateBackend the state backend's options ({@link LocalOptions#stateBackend}) */
    LocalCluster(StopSignal stop, Configuration stateBackend) {
        this.stop = stop;
        this.stateBackend = stateBackend;
    }

    /**
     * @param dynamoDbEndpoint when not null, the endpoint of the run's dynalite, asked for
     *     once the MiniCluster has started (both start at the same time)
     * @param kinesis when not null, the run's kinesalite, likewise: the job reads its stream, fed
     *     from when its source reads the stream (the run's duration counts from then) until the end, when
     *     the fleet stops first and the job reads the rest
     */
    Outcome run(
            PeriodTablesConfig given,
            Supplier<URI> dynamoDbEndpoint,
            Supplier<LocalKinesis> kinesis,
            Duration duration,
            String fromSavepoint)
            throws Exception {
        Configuration flink = LoopbackFlink.configuration("8081-8099");
        flink.addAll(stateBackend);
        flink.setString(MetricOptions.REPORTERS_LIST.key(), "status");
        flink.setString("metrics.reporter.status.factory.class", LocalStatusReporter.Factory.class.getName());
        // Network buffers sized to hold a quarter second of data at each of the three exchanges:
        // "in flight" stays small, and an overload reaches the source as backpressure instead of
        // queueing (Flink's 32 KiB buffers hold ~6,000 readings per exchange).
        flink.set(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED, true);
        flink.set(TaskManagerOptions.BUFFER_DEBLOAT_TARGET, Duration.ofMillis(250));
        flink.set(TaskManagerOptions.MEMORY_SEGMENT_SIZE, MemorySize.parse("8kb"));
        MiniClusterConfiguration clusterConfig = new MiniClusterConfiguration.Builder()
                .setConfiguration(flink)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(given.get(ConfigKeys.PARALLELISM))
                .build();
        try (MiniCluster cluster = new MiniCluster(clusterConfig)) {
            cluster.start();
            System.out.println("Flink Web UI: " + cluster.getRestAddress().get());
            PeriodTablesConfig config = dynamoDbEndpoint == null
                    ? given
                    : given.with(
                            ConfigKeys.DYNAMODB_ENDPOINT, dynamoDbEndpoint.get().toString());
            LocalKinesis stream = kinesis == null ? null : kinesis.get();
            if (stream != null) {
                config = stream.configure(config);
            }
            CompletableFuture<List<String>> firstTables =
                    fromSavepoint == null ? prebuild(config, stream != null) : null;
            if (fromSavepoint != null) {
                prebuildResumed(config);
            }
            JobGraph graph = jobGraph(flink, config, fromSavepoint);
            // logged here, for the graph the run submits, not for check()'s
            PeriodTablesTopology.logArchive(config);
            JobID job = cluster.submitJob(graph).get().getJobID();
            long submitted = System.currentTimeMillis();
            // The run's clock: from the submission, or with the Kinesis fleet from its start, so that the
            // duration is how long the fleet ran and the readings/s are over its time, not the deployment's.
            long started = submitted;
            long deadline = duration == null || stream != null ? Long.MAX_VALUE : submitted + duration.toMillis();
            Progress progress = new Progress(new StatusLine(config), stream, config, submitted, firstTables);
            JobStatus state = cluster.getJobStatus(job).get();
            FleetStart fleet = stream == null ? null : new FleetStart(stream, config, submitted);
            while (!state.isGloballyTerminalState() && System.currentTimeMillis() < deadline && !stop.requested()) {
                stop.await(Math.min(100, Math.max(1, deadline - System.currentTimeMillis())));
                progress.tick();
                state = cluster.getJobStatus(job).get();
                if (fleet != null && !stream.feeding()) {
                    long fleetStart = fleet.startIfDue(() -> allRunning(cluster, job));
                    if (fleetStart > 0) {
                        started = fleetStart;
                        deadline = duration == null ? Long.MAX_VALUE : started + duration.toMillis();
                    }
                }
            }
            PeriodTablesConfig fed = config;
            long inBySeconds = RunCounts.now(config.naming()).in();
            // The fleet ends first (it puts nothing after its end): the run's seconds end where it ended.
            long ended = stream == null || state.isGloballyTerminalState()
                    ? System.currentTimeMillis()
                    : stream.endFleet(() -> inBySeconds);
            double seconds = (ended - started) / 1000.0;
            String ending;
            String savepoint = null;
            String failure = null;
            if (state.isGloballyTerminalState()) {
                ending = "Job " + state.name().toLowerCase() + ".";
            } else {
                ending = stop.requested() ? "Stopped by " + stop.name() + "." : "Stopped after " + duration + ".";
                if (stream != null) {
                    stream.awaitRead(() -> RunCounts.now(fed.naming()).in(), progress::tick);
                }
                try {
                    // A savepoint needs every task running: a restored job may still be deploying.
                    long bound = System.currentTimeMillis() + TimeUnit.MINUTES.toMillis(2);
                    while (!allRunning(cluster, job)
                            && !cluster.getJobStatus(job).get().isGloballyTerminalState()
                            && System.currentTimeMillis() < bound) {
                        progress.tick();
                        Thread.sleep(100);
                    }
                    savepoint = stopWithSavepoint(cluster, job);
                } catch (Exception e) {
                    cluster.cancelJob(job).get();
                    failure = "stop with savepoint failed (" + rootOf(e) + "), job cancelled";
                }
            }
            double drainSeconds = (System.currentTimeMillis() - ended) / 1000.0;
            if (cluster.getJobStatus(job).get() == JobStatus.FAILED) {
                failure = failureOf(cluster, job);
            }
            return new Outcome(
                    config,
                    ending,
                    savepoint,
                    failure,
                    RunCounts.now(config.naming()),
                    inBySeconds,
                    seconds,
                    drainSeconds,
                    // a resume's tables were there before it started
                    fromSavepoint == null ? progress.firstTable : null);
        }
    }

    /** The status line once a second, with what the feeder put, and when the first table was there. */
    private static final class Progress {
        private final StatusLine status;
        private final LocalKinesis stream;
        private final PeriodTablesConfig config;
        private final CompletableFuture<List<String>> prebuilt;
        private long nextLine;
        private Double firstTable;

        Progress(
                StatusLine status,
                LocalKinesis stream,
                PeriodTablesConfig config,
                long submitted,
                CompletableFuture<List<String>> prebuilt) {
            this.status = status;
            this.stream = stream;
            this.config = config;
            this.nextLine = submitted + 1000;
            this.prebuilt = prebuilt;
        }

        void tick() {
            boolean ready = prebuilt != null && prebuilt.isDone() && !prebuilt.isCompletedExceptionally();
            if (firstTable == null && (ready || RunCounts.now(config.naming()).tablesCreated() > 0)) {
                firstTable = secondsSinceJvmStart();
            }
            if (System.currentTimeMillis() >= nextLine) {
                nextLine += 1000;
                String line = status.line();
                if (status.started()) {
                    System.out.println(stream == null ? line : line + " | " + stream.status());
                }
            }
        }
    }

    /**
     * The fleet's first tables, created while the job deploys: the period of its first reading
     * and the next one if the fleet reaches it (or the rotation would prebuild it) within its
     * first {@link #WARM_UP} of wall clock, their rollups tables, and the latest table. Only for the fleet, whose event
     * times are known.
     */
    private static CompletableFuture<List<String>> prebuild(PeriodTablesConfig config, boolean fedStream) {
        if (config.get(ConfigKeys.SOURCE) != ConfigKeys.SourceKind.GENERATOR && !fedStream) {
            return null;
        }
        Instant start = config.find(ConfigKeys.GENERATOR_START).orElse(Instant.now());
        Duration warmUp = Duration.ofMillis((long) (WARM_UP.toMillis() * config.get(ConfigKeys.GENERATOR_SPEEDUP)));
        CompletableFuture<List<String>> tables =
                Rotation.prebuild(config, start, start.plus(warmUp).plus(config.get(ConfigKeys.ROTATION_LEAD)));
        if (config.get(ConfigKeys.LATEST_ENABLED)) {
            // The latest writers create their table at their first put that finds none, each device's put
            // backing off meanwhile: a start's first second of latest items refused, the source backpressured.
            DynamoDbAsyncClient client = DynamoDbClients.of(config).newAsyncClient(1);
            CompletableFuture<Void> latest = new LatestTable(
                            client,
                            config.naming(),
                            config.find(ConfigKeys.LATEST_WARM_WRITES).orElse(0))
                    .ensure()
                    .whenComplete((done, error) -> client.close());
            tables = tables.thenCombine(latest, (names, done) -> names);
        }
        tables.exceptionally(e -> {
            System.out.println("First tables not prebuilt (" + rootOf(e) + "); the job creates them as it goes.");
            return null;
        });
        return tables;
    }

    /**
     * A resume's next table, created while the job restores: the fleet goes on from where its run stopped,
     * in the period of the run's newest period table or the next one, which the run's rotation prebuilds
     * only {@code rotation.lead} ahead of the watermark and may not have built before the stop. Without
     * it, a resume's first writes waited for the table owner to create it (the first seconds backpressured,
     * the watermark and the open table's WCU unknown). Only for the fleet, whose event time continues.
     */
    private static void prebuildResumed(PeriodTablesConfig config) {
        if (config.get(ConfigKeys.SOURCE) != ConfigKeys.SourceKind.GENERATOR) {
            return;
        }
        TableNaming naming = config.naming();
        List<String> names = new ArrayList<>();
        try (DynamoDbAsyncClient client = DynamoDbClients.of(config).newAsyncClient(1)) {
            client.listTablesPaginator(b -> {})
                    .tableNames()
                    .subscribe(names::add)
                    .join();
        } catch (RuntimeException e) {
            System.out.println("Next table not prebuilt (" + rootOf(e) + "); the job creates it as it goes.");
            return;
        }
        names.stream()
                .map(naming::parse)
                .flatMap(Optional::stream)
                .filter(ref -> ref.kind() == TableNaming.TableRef.Kind.PERIOD)
                .map(TableNaming.TableRef::period)
                .max(Comparator.comparing(Period::start))
                .ifPresent(newest -> Rotation.prebuild(config, newest.start(), newest.end())
                        .exceptionally(e -> {
                            System.out.println(
                                    "Next table not prebuilt (" + rootOf(e) + "); the job creates it as it goes.");
                            return null;
                        }));
    }

    private static boolean allRunning(MiniCluster cluster, JobID job) throws Exception {
        // While the job initializes (a loaded machine: tens of seconds), its execution graph is not served.
        if (cluster.getJobStatus(job).get() != JobStatus.RUNNING) {
            return false;
        }
        for (AccessExecutionJobVertex vertex :
                cluster.getExecutionGraph(job).get().getAllVertices().values()) {
            if (vertex.getAggregateState() != ExecutionState.RUNNING) {
                return false;
            }
        }
        return true;
    }

    /**
     * Builds the job's graph without running it, so that a setting the topology checks (such as
     * {@code archive.path}'s file system) stops the run before anything is deleted or started.
     *
     * @throws io.periodtables.core.config.ConfigException naming the key
     */
    static void check(PeriodTablesConfig config) {
        jobGraph(new Configuration(), config, null);
    }

    private static JobGraph jobGraph(Configuration flink, PeriodTablesConfig config, String fromSavepoint) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        env.setParallelism(config.get(ConfigKeys.PARALLELISM));
        env.enableCheckpointing(config.get(ConfigKeys.CHECKPOINT_INTERVAL).toMillis());
        PeriodTablesTopology.build(env, config, Clock.systemUTC());
        JobGraph jobGraph = env.getStreamGraph().getJobGraph();
        if (fromSavepoint != null) {
            jobGraph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(fromSavepoint, false));
        }
        return jobGraph;
    }

    /** Stops the job with a draining savepoint: the source stops, the windows fire, the sink flushes. */
    private static String stopWithSavepoint(MiniCluster cluster, JobID job) throws Exception {
        Path savepoints = LocalRunner.WORK_DIR.resolve("savepoints").toAbsolutePath();
        return cluster.stopWithSavepoint(job, savepoints.toUri().toString(), true, SavepointFormatType.CANONICAL)
                .get(2, TimeUnit.MINUTES);
    }

    /** One line for the console; the whole trace goes to a file next to the log. */
    private static String failureOf(MiniCluster cluster, JobID job) throws Exception {
        Throwable t = cluster.requestJobResult(job)
                .get()
                .getSerializedThrowable()
                .map(s -> s.deserializeError(LocalCluster.class.getClassLoader()))
                .orElse(null);
        if (t == null) {
            return "the job failed without a cause";
        }
        Path file = LocalRunner.WORK_DIR.resolve("failure.txt");
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file))) {
            t.printStackTrace(out);
        } catch (IOException ignored) {
            // the one line below is still printed
        }
        return rootOf(t) + " (stack trace in " + file + ")";
    }

    private static String rootOf(Throwable t) {
        Throwable root = ExceptionUtils.stripExecutionException(t);
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.toString();
    }

    private static double secondsSinceJvmStart() {
        return ManagementFactory.getRuntimeMXBean().getUptime() / 1000.0;
    }
}
