package io.periodtables.verification;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.TableNaming;
import java.io.PrintStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.Shard;

/**
 * The order of one confirmed {@code verify} run: the run's 1-shard provisioned stream, the job on a
 * local MiniCluster (the production topology) reading it, the {@link DataSet} put in two phases
 * with a shard split between them, then the {@link ContractChecks} until all pass or a bound passes.
 * What it created is the caller's to delete ({@link RunCleanup}), which it is told of as it goes.
 */
final class VerifyRun {
    /** The job's capacity tiers for the run: small, so that provisioned table-hours cost a fraction of a cent. */
    static final Capacity CURRENT = Capacity.provisioned(5, 5);

    static final Capacity PREVIOUS = Capacity.provisioned(2, 2);
    static final Capacity OLDER = Capacity.provisioned(1, 1);
    /**
     * How long the checks may take to pass after the last record is put (DynamoDB's UpdateTable takes minutes at
     * worst).
     */
    static final Duration CHECK_BOUND = Duration.ofMinutes(5);
    /** How long the next table may take to be prebuilt once the watermark passed its lead. */
    static final Duration PREBUILD_BOUND = Duration.ofMinutes(3);

    private final PrintStream out;
    private final Target target;
    private final RunResources resources;
    private final Duration period;
    private final DataSet data;

    VerifyRun(PrintStream out, Target target, RunResources resources, Duration period, DataSet data) {
        this.out = out;
        this.target = target;
        this.resources = resources;
        this.period = period;
        this.data = data;
    }

    /** Runs it; true when every check passed. Throws when the run itself failed (a refused call included). */
    boolean run(RunCleanup cleanup) {
        String run = resources.run();
        resources.checkUnused();
        String arn = resources.createStream(1);
        out.println("Created stream " + run + " (1 shard, provisioned): " + arn);
        PeriodTablesConfig config = ConfigLoader.fromMap(jobSettings(target, run, period, arn), false);
        return runJob(config, cleanup);
    }

    private boolean runJob(PeriodTablesConfig config, RunCleanup cleanup) {
        TableNaming naming = config.naming();
        JobUnderTest job;
        try {
            job = JobUnderTest.start(config);
        } catch (Exception e) {
            throw new IllegalStateException("the job did not start: " + e, e);
        }
        cleanup.job(job);
        out.println("Started the job on a local MiniCluster (production topology, parallelism 1)");

        put(data.beforeSplit());
        out.println(
                "Put " + data.beforeSplit().size() + " records: 2 periods of 3 devices, 3 of them twice, 3 bad ones");
        String next = naming.periodTableOf(data.periodStart(3));
        Optional<Instant> created = awaitTable(job, next);
        Instant firstPut = Instant.now();
        Check prebuilt = new Check(
                "next period's table prebuilt before its first reading",
                created.isPresent(),
                next + " there before its first reading is put (the job builds it once its watermark is "
                        + config.get(io.periodtables.core.config.ConfigKeys.ROTATION_LEAD) + " before the rollover)",
                created.map(c -> "it created at " + c + ", before the first reading at " + firstPut)
                        .orElse("it not there after " + PREBUILD_BOUND));

        List<Shard> shards = split();
        out.println("Split the stream's shard while the job reads it: open shards now "
                + shards.stream().map(Shard::shardId).toList());
        put(List.of(data.latePut()));
        put(data.afterSplit());
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
    private Optional<Instant> awaitTable(JobUnderTest job, String table) {
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
    private List<Shard> split() {
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
    private void put(List<DataSet.Put> puts) {
        String stream = resources.run();
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
}
