package io.periodtables.job.reliability;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.DynamoDbFaults;
import io.periodtables.emulators.FaultKind;
import io.periodtables.emulators.SeenRequest;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * One reliability case from configuration to verdict: the configuration (hourly tables, two
 * shards, dynalite), the run of the production topology ({@link TestSource}) on the shared MiniCluster, and
 * the {@link ExactlyOnceCheck} of every table of the case's prefix.
 */
final class ReliabilityRun {
    private static final Logger LOG = LoggerFactory.getLogger(ReliabilityRun.class);

    final PeriodTablesConfig config;
    final TestInput input;
    final ExpectedTables expected;
    Instant start;
    Instant end;
    private List<SeenRequest> seen;

    private ReliabilityRun(PeriodTablesConfig config, TestInput input) {
        this.config = config;
        this.input = input;
        this.expected = ExpectedTables.of(config, input, Instant.now());
    }

    /** A MiniCluster of one task manager with two slots, which is all a run needs. */
    static MiniClusterExtension miniCluster() {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(2)
                .setConfiguration(LoopbackFlink.configuration("0"))
                .build());
    }

    /** The configuration of a case: hourly tables of {@code prefix}, 2 shards, plus {@code keyValues}. */
    static PeriodTablesConfig config(URI dynamoDb, String prefix, String... keyValues) {
        Map<String, String> map = new HashMap<>();
        map.put("dynamodb.endpoint", dynamoDb.toString());
        map.put("tables.prefix", prefix);
        map.put("tables.period", "PT1H");
        map.put("tables.shards", "2");
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return ConfigLoader.fromMap(map, false);
    }

    static ReliabilityRun of(PeriodTablesConfig config, TestInput input) {
        return new ReliabilityRun(config, input);
    }

    /** Runs the bounded job to its end; the fault script stays as the test set it. */
    ReliabilityRun execute() throws Exception {
        return execute(new TestSource.Hooks(), env -> {});
    }

    ReliabilityRun execute(TestSource.Hooks hooks, Consumer<StreamExecutionEnvironment> setup) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        setup.accept(env);
        TestSource.build(env, config, input, hooks);
        start = Instant.now();
        try {
            env.execute("reliability " + config.naming().prefix());
        } finally {
            end = Instant.now();
            LOG.info(
                    "Run of {} took {} ms; DynamoDB calls seen: {}",
                    config.naming().prefix(),
                    Duration.between(start, end).toMillis(),
                    DynamoDbFaults.requests().size());
        }
        return this;
    }

    /**
     * As {@link #execute(TestSource.Hooks, Consumer)}, with {@code duringRun}, which the test thread
     * runs once the job is submitted (a TaskManager lost); waits at most {@code bound} for the end.
     */
    ReliabilityRun execute(
            TestSource.Hooks hooks, Consumer<StreamExecutionEnvironment> setup, DuringRun duringRun, Duration bound)
            throws Exception {
        JobClient job = submit(hooks, setup);
        try {
            duringRun.accept(job);
            job.getJobExecutionResult().get(bound.toSeconds(), TimeUnit.SECONDS);
        } finally {
            end = Instant.now();
            ArchiveCheck.cancelIfRunning(job);
            LOG.info(
                    "Run of {} took {} ms",
                    config.naming().prefix(),
                    Duration.between(start, end).toMillis());
        }
        return this;
    }

    /** Submits the job at parallelism 2 with {@code setup} applied; its run starts now. */
    private JobClient submit(TestSource.Hooks hooks, Consumer<StreamExecutionEnvironment> setup) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        setup.accept(env);
        TestSource.build(env, config, input, hooks);
        start = Instant.now();
        return env.executeAsync("reliability " + config.naming().prefix());
    }

    /**
     * Runs the job until its tables hold exactly the expected items (polling with a bound), then
     * cancels it and checks once more: for cases where the job itself does not finish soon.
     */
    ReliabilityRun executeUntilStored(Dynalite dynamoDb, Duration bound) throws Exception {
        return executeUntilStored(dynamoDb, bound, new TestSource.Hooks(), env -> {}, job -> {});
    }

    /**
     * As {@link #executeUntilStored(Dynalite, Duration)}, with hooks, environment settings,
     * and {@code duringRun}, which the test thread runs once the job is submitted (an outage).
     */
    ReliabilityRun executeUntilStored(
            Dynalite dynamoDb,
            Duration bound,
            TestSource.Hooks hooks,
            Consumer<StreamExecutionEnvironment> setup,
            DuringRun duringRun)
            throws Exception {
        JobClient job = submit(hooks, setup);
        AssertionError last = null;
        try {
            duringRun.accept(job);
            Instant deadline = Instant.now().plus(bound);
            boolean over;
            do {
                Thread.sleep(500);
                over = job.getJobStatus().get().isGloballyTerminalState();
                if (over) {
                    job.getJobExecutionResult().get(); // throws when the job failed
                }
                end = Instant.now();
                try (DynamoDbClient client = dynamoDb.syncClient()) {
                    ExactlyOnceCheck.assertExactlyOnce(
                            expected, TableSnapshot.read(client, config.naming()), start, end);
                    last = null;
                } catch (AssertionError notYet) {
                    last = notYet;
                }
            } while (last != null && !over && Instant.now().isBefore(deadline));
        } finally {
            seen = DynamoDbFaults.requests();
            if (!job.getJobStatus().get().isGloballyTerminalState()) {
                job.cancel().get(30, TimeUnit.SECONDS);
            }
            LOG.info(
                    "Run of {} ended after {} ms",
                    config.naming().prefix(),
                    Duration.between(start, Instant.now()).toMillis());
        }
        if (last != null) {
            throw last;
        }
        end = Instant.now();
        assertExactlyOnce(dynamoDb);
        return this;
    }

    /** What a test does while its job runs. */
    @FunctionalInterface
    interface DuringRun {
        void accept(JobClient job) throws Exception;
    }

    /** How often the fault script injected {@code kind} into {@code operation} before the check reset it. */
    long injectedBeforeCheck(String operation, FaultKind kind) {
        return seen.stream()
                .filter(r -> r.operation().equals(operation) && r.fault().equals(Optional.of(kind)))
                .count();
    }

    /** Ends the fault script (so the reads are not faulted) and checks every table of the prefix. */
    TableSnapshot assertExactlyOnce(Dynalite dynamoDb) {
        TableSnapshot snapshot = snapshot(dynamoDb);
        ExactlyOnceCheck.assertExactlyOnce(expected, snapshot, start, end);
        return snapshot;
    }

    /** Ends the fault script (keeping its request log) and reads every table of the prefix. */
    TableSnapshot snapshot(Dynalite dynamoDb) {
        if (seen == null) {
            seen = DynamoDbFaults.requests();
        }
        DynamoDbFaults.reset();
        try (DynamoDbClient client = dynamoDb.syncClient()) {
            return TableSnapshot.read(client, config.naming());
        }
    }

    /** The DynamoDB calls of the run, as {@code DynamoDbFaults} logged them. */
    List<SeenRequest> requests() {
        return seen;
    }
}
