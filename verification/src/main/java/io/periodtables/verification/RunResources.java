package io.periodtables.verification;

import io.periodtables.core.period.TableNaming;
import java.io.PrintStream;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.waiters.WaiterOverrideConfiguration;
import software.amazon.awssdk.core.waiters.WaiterResponse;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.kinesis.model.DescribeStreamResponse;
import software.amazon.awssdk.services.kinesis.model.StreamDescription;
import software.amazon.awssdk.services.kinesis.model.StreamMode;
import software.amazon.awssdk.services.kinesis.waiters.KinesisWaiter;

/**
 * What one run owns, and the only things {@code verify} ever reads, changes or deletes: the stream
 * named {@code verify-<run>} carrying the tag {@value #TAG}={@code verify-<run>}, and the tables
 * named {@code verify-<run>_…} carrying the job's own tag {@code managed-by=period-tables} (the job
 * creates them; it has no key for more tags). A name alone, or a tag alone, is never enough: a table
 * of the prefix without the tag, or a tagged one of another prefix, is left alone.
 */
final class RunResources {
    /** The stream's tag key; its value is the run. */
    static final String TAG = "period-tables-verify";
    /** A run's name: {@code verify-} and 8 hex digits. */
    static final Pattern RUN = Pattern.compile("verify-[0-9a-f]{8}");

    private static final Pattern TABLE_OF_A_RUN = Pattern.compile("(verify-[0-9a-f]{8})_.+");
    private static final Duration DELETE_BOUND = Duration.ofMinutes(5);

    private final Target target;
    private final String run;

    RunResources(Target target, String run) {
        if (!RUN.matcher(run).matches()) {
            throw new IllegalArgumentException("a run's name is verify- and 8 hex digits, not " + run);
        }
        this.target = target;
        this.run = run;
    }

    /** A new run's name: {@code verify-} and 8 random hex digits. */
    static String randomName() {
        byte[] bytes = new byte[4];
        new SecureRandom().nextBytes(bytes);
        return "verify-" + HexFormat.of().formatHex(bytes);
    }

    /** The run's name: its stream's name, its tables' prefix, its tag's value. */
    String run() {
        return run;
    }

    /**
     * Refuses to start when anything of the run's name already exists: the name is random, so that
     * would be somebody else's.
     */
    void checkUnused() {
        if (!tablesNamed(run).isEmpty() || !streamsNamed(run).isEmpty()) {
            throw new IllegalStateException("something named " + run + " exists already; verify touches nothing it"
                    + " did not create: run it again (a new run gets a new name)");
        }
    }

    /** Creates the run's provisioned stream, tagged, and returns its ARN once it is ACTIVE. */
    String createStream(int shards) {
        PermissionDenied.call(
                "kinesis:CreateStream",
                () -> target.kinesis.createStream(b -> b.streamName(run)
                        .shardCount(shards)
                        .streamModeDetails(m -> m.streamMode(StreamMode.PROVISIONED))
                        .tags(Map.of(TAG, run))));
        String arn = awaitActive().streamARN();
        // CreateStream's tags are recent in the API: the tag is put again once the stream is ACTIVE, so that
        // an endpoint that dropped them (kinesalite) has it too
        PermissionDenied.call(
                "kinesis:AddTagsToStream",
                () -> target.kinesis.addTagsToStream(b -> b.streamName(run).tags(Map.of(TAG, run))));
        return arn;
    }

    /** Waits (up to 5 minutes) until the stream is ACTIVE, after a create or a reshard. */
    StreamDescription awaitActive() {
        return awaitStream(
                        target,
                        run,
                        "ACTIVE",
                        waiter -> waiter.waitUntilStreamExists(b -> b.streamName(run), RunResources::bounded))
                .matched()
                .response()
                .orElseThrow()
                .streamDescription();
    }

    /**
     * Runs one of the Kinesis SDK's waiters on {@code stream} ({@code DescribeStream} every half
     * second, up to {@link #DELETE_BOUND}): a refused {@code DescribeStream} is the one-line
     * permission failure, any other end than {@code state} says which state was not reached.
     */
    private static WaiterResponse<DescribeStreamResponse> awaitStream(
            Target target,
            String stream,
            String state,
            Function<KinesisWaiter, WaiterResponse<DescribeStreamResponse>> wait) {
        try (KinesisWaiter waiter =
                KinesisWaiter.builder().client(target.kinesis).build()) {
            return PermissionDenied.call("kinesis:DescribeStream", () -> wait.apply(waiter));
        } catch (SdkClientException e) {
            throw new IllegalStateException(
                    "stream " + stream + " not " + state + " within " + DELETE_BOUND + ": " + e.getMessage(), e);
        }
    }

    private static void bounded(WaiterOverrideConfiguration.Builder waiting) {
        waiting.waitTimeout(DELETE_BOUND)
                .maxAttempts(Integer.MAX_VALUE)
                .backoffStrategyV2(BackoffStrategy.fixedDelayWithoutJitter(Duration.ofMillis(500)));
    }

    /** The run's tables (name and tag), sorted. */
    List<String> tables() {
        return tablesNamed(run);
    }

    /**
     * Deletes what the run owns, tables first (the job must be stopped: its rotation would create the
     * next one again), then the stream; prints a line each. Tables still changing are waited for.
     */
    void delete(PrintStream out) {
        deleteRun(target, run, out);
    }

    /** How to delete the run's resources by hand (for {@code --keep}). */
    List<String> deleteCommands() {
        List<String> commands = new ArrayList<>();
        for (String table : tables()) {
            commands.add("aws dynamodb delete-table --region " + target.region() + " --table-name " + table);
        }
        if (!streamsNamed(run).isEmpty()) {
            commands.add("aws kinesis delete-stream --region " + target.region() + " --stream-name " + run);
        }
        commands.add("or: ./verify --cleanup (deletes every run's leftovers, found by name and tag)");
        return commands;
    }

    /**
     * Finds the leftovers of earlier runs (streams and tables named {@code verify-<8 hex>}, with the
     * tags a run gives them) and deletes them; returns the runs found.
     */
    static List<String> cleanupLeftovers(Target target, PrintStream out) {
        TreeSet<String> runs = new TreeSet<>();
        for (String table : listTables(target, "verify-")) {
            Matcher m = TABLE_OF_A_RUN.matcher(table);
            if (m.matches()) {
                runs.add(m.group(1));
            }
        }
        for (String stream : listStreams(target, "verify-")) {
            if (RUN.matcher(stream).matches()) {
                runs.add(stream);
            }
        }
        List<String> found = new ArrayList<>();
        for (String run : runs) {
            if (!tablesNamed(target, run).isEmpty()
                    || !streamsNamed(target, run).isEmpty()) {
                found.add(run);
                deleteRun(target, run, out);
            }
        }
        return found;
    }

    private List<String> tablesNamed(String run) {
        return tablesNamed(target, run);
    }

    private List<String> streamsNamed(String run) {
        return streamsNamed(target, run);
    }

    /** The tables named {@code <run>_…} that carry the job's tag. */
    private static List<String> tablesNamed(Target target, String run) {
        List<String> owned = new ArrayList<>();
        for (String table : listTables(target, run + "_")) {
            Map<String, String> tags = tagsOf(target, table);
            if (TableNaming.MANAGED_BY_VALUE.equals(tags.get(TableNaming.MANAGED_BY_TAG))) {
                owned.add(table);
            }
        }
        return owned;
    }

    /** The stream named {@code run} when it carries the run's tag. */
    private static List<String> streamsNamed(Target target, String run) {
        if (!listStreams(target, run).contains(run)) {
            return List.of();
        }
        try {
            Map<String, String> tags = new HashMap<>();
            PermissionDenied.call(
                            "kinesis:ListTagsForStream", () -> target.kinesis.listTagsForStream(b -> b.streamName(run)))
                    .tags()
                    .forEach(t -> tags.put(t.key(), t.value()));
            return run.equals(tags.get(TAG)) ? List.of(run) : List.of();
        } catch (software.amazon.awssdk.services.kinesis.model.ResourceNotFoundException gone) {
            return List.of();
        }
    }

    private static void deleteRun(Target target, String run, PrintStream out) {
        long deadline = System.nanoTime() + DELETE_BOUND.toNanos();
        // a table UPDATING (being lowered) or CREATING is deleted once it is ACTIVE again; the listing is
        // taken once more after a pause, for a table whose creation the stopped job had sent just before
        for (int quiet = 0; quiet < 2; ) {
            List<String> left = tablesNamed(target, run);
            quiet = left.isEmpty() ? quiet + 1 : 0;
            for (String table : left) {
                try {
                    PermissionDenied.call(
                            "dynamodb:DeleteTable", () -> target.dynamo.deleteTable(b -> b.tableName(table)));
                    out.println("Deleted table " + table);
                } catch (ResourceInUseException | ResourceNotFoundException busyOrGone) {
                    // again below
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "tables of " + run + " still there after " + DELETE_BOUND + ": " + tablesNamed(target, run));
            }
            if (quiet < 2) {
                pause(1000);
            }
        }
        if (!streamsNamed(target, run).isEmpty()) {
            PermissionDenied.call(
                    "kinesis:DeleteStream",
                    () -> target.kinesis.deleteStream(b -> b.streamName(run).enforceConsumerDeletion(false)));
            // DELETING for a while; the stream is gone once DescribeStream no longer finds it
            awaitStream(
                    target,
                    run,
                    "deleted",
                    waiter -> waiter.waitUntilStreamNotExists(b -> b.streamName(run), RunResources::bounded));
            out.println("Deleted stream " + run);
        }
    }

    private static List<String> listTables(Target target, String prefix) {
        List<String> names = new ArrayList<>();
        String start = null;
        do {
            String from = start;
            var page = PermissionDenied.call(
                    "dynamodb:ListTables",
                    () -> target.dynamo.listTables(
                            b -> b.exclusiveStartTableName(from).limit(100)));
            page.tableNames().stream().filter(n -> n.startsWith(prefix)).forEach(names::add);
            start = page.lastEvaluatedTableName();
        } while (start != null);
        names.sort(null);
        return names;
    }

    private static List<String> listStreams(Target target, String prefix) {
        List<String> names = new ArrayList<>();
        String start = null;
        boolean more;
        do {
            String from = start;
            var page = PermissionDenied.call(
                    "kinesis:ListStreams", () -> target.kinesis.listStreams(b -> b.exclusiveStartStreamName(from)));
            page.streamNames().stream().filter(n -> n.startsWith(prefix)).forEach(names::add);
            more = Boolean.TRUE.equals(page.hasMoreStreams())
                    && !page.streamNames().isEmpty();
            start = more ? page.streamNames().get(page.streamNames().size() - 1) : null;
        } while (more);
        return names;
    }

    private static Map<String, String> tagsOf(Target target, String table) {
        Map<String, String> tags = new HashMap<>();
        try {
            TableDescription description = PermissionDenied.call(
                    "dynamodb:DescribeTable",
                    () -> target.dynamo.describeTable(b -> b.tableName(table)).table());
            PermissionDenied.call(
                            "dynamodb:ListTagsOfResource",
                            () -> target.dynamo.listTagsOfResource(b -> b.resourceArn(description.tableArn())))
                    .tags()
                    .forEach(t -> tags.put(t.key(), t.value()));
        } catch (ResourceNotFoundException gone) {
            // deleted meanwhile: not ours to touch any more
        }
        return tags;
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
