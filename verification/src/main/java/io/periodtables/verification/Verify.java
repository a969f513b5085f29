package io.periodtables.verification;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.TableNaming;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.flink.annotation.VisibleForTesting;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.Shard;

/**
 * {@code ./verify}: runs the job's contract against the caller's Kinesis and DynamoDB (or the
 * emulators) and prints one PASS/FAIL line a check; exit code 0 only when every check passed.
 *
 * <p>In order: the account (STS) and region, the run's name and the cost, a confirmation (unless
 * {@code --yes}); then a 1-shard provisioned stream, the job on a local MiniCluster (the production
 * topology) reading it, the {@link DataSet} put in two phases with a shard split between them,
 * the {@link ContractChecks} until all pass or a bound passes, and the deletion of everything the
 * run created ({@link RunResources}), also on failure and on Ctrl-C (a shutdown hook).
 */
public final class Verify {
    /** The job's capacity tiers for the run: small, so that provisioned table-hours cost a fraction of a cent. */
    static final Capacity CURRENT = Capacity.provisioned(5, 5);

    static final Capacity PREVIOUS = Capacity.provisioned(2, 2);
    static final Capacity OLDER = Capacity.provisioned(1, 1);
    /** How long the checks may take to pass after the last record is put (DynamoDB's UpdateTable takes minutes at worst). */
    static final Duration CHECK_BOUND = Duration.ofMinutes(5);
    /** How long the next table may take to be prebuilt once the watermark passed its lead. */
    static final Duration PREBUILD_BOUND = Duration.ofMinutes(3);

    private final PrintStream out;
    private final InputStream in;
    private final Supplier<String> runNames;

    Verify(PrintStream out, InputStream in) {
        this(out, in, RunResources::randomName);
    }

    /** @param runNames the run's name ({@code verify-<8 hex>}); tests fix it to lay a table beside the run's */
    @VisibleForTesting
    Verify(PrintStream out, InputStream in, Supplier<String> runNames) {
        this.out = out;
        this.in = in;
        this.runNames = runNames;
    }

    public static void main(String[] args) {
        System.exit(new Verify(System.out, System.in).run(Arrays.asList(args), true));
    }

    /**
     * Runs the command; returns its exit code (0 all passed, 1 a check failed or the run failed, 2 bad
     * arguments, 3 not confirmed).
     *
     * @param hook whether Ctrl-C deletes what the run created (a shutdown hook; tests run without)
     */
    int run(List<String> args, boolean hook) {
        VerifyOptions options;
        try {
            options = VerifyOptions.parse(args);
        } catch (IllegalArgumentException e) {
            out.println(e.getMessage());
            return 2;
        }
        if (options.help()) {
            out.println(VerifyOptions.USAGE);
            return 0;
        }
        try (Target target = Target.of(options)) {
            out.println("Where: " + target.identity() + ", region " + target.region());
            if (options.cleanup()) {
                return cleanup(target, options);
            }
            return verify(target, options, hook);
        } catch (PermissionDenied denied) {
            out.println(denied.line());
            return 1;
        }
    }

    private int cleanup(Target target, VerifyOptions options) {
        if (!options.yes()
                && !confirm("Delete every stream and table left by earlier verify runs (named verify-<run>,"
                        + " tagged as verify tags them)?")) {
            return 3;
        }
        List<String> runs = RunResources.cleanupLeftovers(target, out);
        out.println(runs.isEmpty() ? "Nothing left by earlier runs." : "Deleted the leftovers of " + runs + ".");
        return 0;
    }

    private int verify(Target target, VerifyOptions options, boolean hook) {
        RunResources resources = new RunResources(target, runNames.get());
        String run = resources.run();
        Duration period = options.period();
        // the data's first period: ten periods back, so the wall clock never holds the job's watermark
        long periodMillis = period.toMillis();
        Instant start =
                Instant.ofEpochMilli((System.currentTimeMillis() - 10 * periodMillis) / periodMillis * periodMillis);
        PeriodTablesConfig config;
        try {
            config = ConfigLoader.fromMap(
                    jobSettings(
                            target, run, period, "arn:aws:kinesis:" + target.region() + ":000000000000:stream/" + run),
                    false);
        } catch (ConfigException e) {
            out.println(e.getMessage());
            return 2;
        }
        DataSet data = new DataSet(start, period, config.naming());
        out.println("Run: " + run + ": stream " + run + " (tag " + RunResources.TAG + "=" + run + "), the job's tables "
                + run + "_* (tag managed-by=period-tables); periods of " + period + " from " + start);
        new CostEstimate(2, 8, CURRENT, data.records(), 500).lines().forEach(out::println);
        if (!options.yes() && !confirm("Create them and run?")) {
            return 3;
        }
        Cleanup cleanup = new Cleanup(resources, options.keep());
        Thread onCtrlC = new Thread(
                () -> {
                    out.println("Stopped by a signal: the job stops, then what the run created is deleted");
                    cleanup.run(out);
                },
                "verify-cleanup");
        if (hook) {
            Runtime.getRuntime().addShutdownHook(onCtrlC);
        }
        boolean passed = false;
        long started = System.nanoTime();
        try {
            resources.checkUnused();
            String arn = resources.createStream(1);
            out.println("Created stream " + run + " (1 shard, provisioned): " + arn);
            config = ConfigLoader.fromMap(jobSettings(target, run, period, arn), false);
            passed = runJob(target, resources, config, data, cleanup);
        } catch (PermissionDenied denied) {
            out.println(denied.line());
        } catch (RuntimeException e) {
            out.println("FAIL run: expected it to end, found " + e);
        } finally {
            cleanup.run(out);
            if (hook) {
                try {
                    Runtime.getRuntime().removeShutdownHook(onCtrlC);
                } catch (IllegalStateException exiting) {
                    // Ctrl-C: the hook runs (and finds the cleanup done)
                }
            }
        }
        out.printf(
                "%s in %d s.%n",
                passed ? "All checks passed" : "Some checks failed",
                Duration.ofNanos(System.nanoTime() - started).toSeconds());
        return passed ? 0 : 1;
    }

    private boolean runJob(
            Target target, RunResources resources, PeriodTablesConfig config, DataSet data, Cleanup cleanup) {
        TableNaming naming = config.naming();
        JobUnderTest job;
        try {
            job = JobUnderTest.start(config);
        } catch (Exception e) {
            throw new IllegalStateException("the job did not start: " + e, e);
        }
        cleanup.job(job);
        out.println("Started the job on a local MiniCluster (production topology, parallelism 1)");

        put(target, resources.run(), data.beforeSplit());
        out.println(
                "Put " + data.beforeSplit().size() + " records: 2 periods of 3 devices, 3 of them twice, 3 bad ones");
        String next = naming.periodTableOf(data.periodStart(3));
        Optional<Instant> created = awaitTable(target, job, next);
        Instant firstPut = Instant.now();
        Check prebuilt = new Check(
                "next period's table prebuilt before its first reading",
                created.isPresent(),
                next + " there before its first reading is put (the job builds it once its watermark is "
                        + config.get(io.periodtables.core.config.ConfigKeys.ROTATION_LEAD) + " before the rollover)",
                created.map(c -> "it created at " + c + ", before the first reading at " + firstPut)
                        .orElse("it not there after " + PREBUILD_BOUND));

        List<Shard> shards = split(target, resources);
        out.println("Split the stream's shard while the job reads it: open shards now "
                + shards.stream().map(Shard::shardId).toList());
        put(target, resources.run(), List.of(data.latePut()));
        put(target, resources.run(), data.afterSplit());
        out.println("Put " + (data.afterSplit().size() + 1)
                + " records after the split: the third period into both children, two of the fourth, and one of the"
                + " first, late");

        ContractChecks checks = new ContractChecks(target, resources, config, data, () -> prebuilt);
        long deadline = System.nanoTime() + CHECK_BOUND.toNanos();
        List<Check> results;
        while (true) {
            results = checks.evaluate();
            if (results.stream().allMatch(Check::passed) || System.nanoTime() > deadline) {
                break;
            }
            failIfJobFailed(job);
            RunResources.pause(2000);
        }
        results.forEach(c -> out.println(c.line()));
        return results.stream().allMatch(Check::passed);
    }

    /** Waits until {@code table} exists; returns its creation time, empty after {@link #PREBUILD_BOUND}. */
    private Optional<Instant> awaitTable(Target target, JobUnderTest job, String table) {
        long deadline = System.nanoTime() + PREBUILD_BOUND.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                return Optional.of(PermissionDenied.call(
                        "dynamodb:DescribeTable",
                        () -> target.dynamo
                                .describeTable(b -> b.tableName(table))
                                .table()
                                .creationDateTime()));
            } catch (software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException notYet) {
                failIfJobFailed(job);
                RunResources.pause(1000);
            }
        }
        return Optional.empty();
    }

    private static void failIfJobFailed(JobUnderTest job) {
        Optional<String> failure;
        try {
            failure = job.failure();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the job's state: " + e, e);
        }
        if (failure.isPresent()) {
            IllegalStateException failed = new IllegalStateException("the job failed: " + failure.get());
            throw PermissionDenied.of(failed, "(the action the job was refused)")
                    .map(RuntimeException.class::cast)
                    .orElse(failed);
        }
    }

    /** Splits the stream's one shard in the middle of the hash range; returns the open shards once ACTIVE. */
    private static List<Shard> split(Target target, RunResources resources) {
        String stream = resources.run();
        String parent = PermissionDenied.call(
                        "kinesis:ListShards", () -> target.kinesis.listShards(b -> b.streamName(stream)))
                .shards()
                .get(0)
                .shardId();
        PermissionDenied.call(
                "kinesis:SplitShard",
                () -> target.kinesis.splitShard(b -> b.streamName(stream)
                        .shardToSplit(parent)
                        .newStartingHashKey(BigInteger.ONE.shiftLeft(127).toString())));
        resources.awaitActive();
        return PermissionDenied.call("kinesis:ListShards", () -> target.kinesis.listShards(b -> b.streamName(stream)))
                .shards()
                .stream()
                .filter(s -> s.sequenceNumberRange().endingSequenceNumber() == null)
                .toList();
    }

    /** Puts the records in order, one request, again those the stream refused. */
    private static void put(Target target, String stream, List<DataSet.Put> puts) {
        List<PutRecordsRequestEntry> pending = new ArrayList<>();
        for (DataSet.Put p : puts) {
            pending.add(PutRecordsRequestEntry.builder()
                    .partitionKey("verify")
                    .explicitHashKey(p.hashKey())
                    .data(SdkBytes.fromString(p.data(), StandardCharsets.UTF_8))
                    .build());
        }
        for (int attempt = 0; !pending.isEmpty(); attempt++) {
            if (attempt == 10) {
                throw new IllegalStateException(pending.size() + " records still refused by the stream");
            }
            List<PutRecordsRequestEntry> batch = pending;
            PutRecordsResponse response = PermissionDenied.call(
                    "kinesis:PutRecords",
                    () -> target.kinesis.putRecords(b -> b.streamName(stream).records(batch)));
            List<PutRecordsRequestEntry> refused = new ArrayList<>();
            for (int i = 0; i < batch.size(); i++) {
                if (response.records().get(i).errorCode() != null) {
                    refused.add(batch.get(i));
                }
            }
            pending = refused;
            if (!pending.isEmpty()) {
                RunResources.pause(500);
            }
        }
    }

    /** The job's settings for the run: the target, the run's stream and prefix, short periods, small tables. */
    static Map<String, String> jobSettings(Target target, String run, Duration period, String streamArn) {
        Map<String, String> s = new LinkedHashMap<>(target.jobSettings());
        s.put("source", "kinesis");
        s.put("kinesis.stream-arn", streamArn);
        s.put("kinesis.initial-position", "TRIM_HORIZON");
        s.put("tables.prefix", run);
        s.put("tables.period", period.toString());
        s.put("tables.shards", "2");
        s.put("tables.ttl", "P1D");
        s.put("tables.capacity.current", CURRENT.writeUnits() + "/" + CURRENT.readUnits());
        s.put("tables.capacity.previous", PREVIOUS.writeUnits() + "/" + PREVIOUS.readUnits());
        s.put("tables.capacity.older", OLDER.writeUnits() + "/" + OLDER.readUnits());
        // no Application Auto Scaling targets: the run creates nothing but its stream and tables
        s.put("tables.capacity.autoscaling", "false");
        s.put("rotation.lead", period.dividedBy(2).toString());
        s.put("window.allowed-lateness", period.dividedBy(6).toString());
        s.put("watermark.out-of-orderness", period.dividedBy(30).toString());
        s.put("rollups.every", period.dividedBy(2).toString());
        s.put("rollups.fields", "temperature");
        s.put("parallelism", "1");
        s.put("checkpoint.interval", "PT2S");
        return s;
    }

    private boolean confirm(String question) {
        out.print(question + " [y/N] ");
        out.flush();
        try {
            String answer = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
            return answer != null
                    && (answer.trim().equalsIgnoreCase("y") || answer.trim().equalsIgnoreCase("yes"));
        } catch (IOException e) {
            return false;
        }
    }

    /** Stops the job, then deletes what the run created (or, with --keep, says how); once, from whichever thread comes first. */
    static final class Cleanup {
        private final RunResources resources;
        private final boolean keep;
        private final AtomicBoolean done = new AtomicBoolean();
        private volatile JobUnderTest job;

        Cleanup(RunResources resources, boolean keep) {
            this.resources = resources;
            this.keep = keep;
        }

        void job(JobUnderTest job) {
            this.job = job;
        }

        synchronized void run(PrintStream out) {
            if (!done.compareAndSet(false, true)) {
                return;
            }
            JobUnderTest j = job;
            if (j != null) {
                try {
                    j.close();
                } catch (Exception e) {
                    out.println("The job did not stop cleanly (" + e + "); deleting the run's resources anyway");
                }
            }
            if (keep) {
                out.println("Kept (--keep). To delete them:");
                resources.deleteCommands().forEach(c -> out.println("  " + c));
                return;
            }
            try {
                resources.delete(out);
                out.println("Cleanup: nothing of " + resources.run() + " is left.");
            } catch (PermissionDenied denied) {
                out.println(denied.line());
                out.println("Cleanup incomplete: ./verify --cleanup deletes what is left once allowed");
            } catch (RuntimeException e) {
                out.println("Cleanup incomplete (" + e + "): ./verify --cleanup deletes what is left");
            }
        }
    }
}
