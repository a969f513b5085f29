package io.periodtables.core.dynamodb;

import io.periodtables.core.period.TableNaming;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.flink.annotation.Internal;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * The writers table ({@code <prefix>_writers}): how the sink writers tell the rotation what they
 * have written through, like the lease table of the Kinesis Client Library. One item per writer
 * (sink subtask) of a job: the <em>acknowledged watermark</em>, the event time before which
 * DynamoDB has acknowledged every entry the writer received. The rotation lowers a closed table
 * only once every writer of the job, of every sink that can write its period, has acknowledged a
 * watermark that closes it.
 *
 * <p>Key: {@code writer} (S) = {@code <group>#<run>} ({@link #run}), {@code subtask} (S) = the subtask index,
 * zero-padded. Attributes: {@code acknowledged} (N, epoch ms), {@code parallelism} (N),
 * {@code attempt} (N), {@code updated} (S, wall-clock instant). On-demand; a job writes an item
 * when a writer starts and when its acknowledged watermark closes another period, so a few items
 * per period. A restore is a new run: its writers start new items; the old ones expire ({@code
 * expires}, N, epoch seconds: TTL, {@value #KEEP_DAYS} days after the item's last put) and, keyed
 * by another run, are never read by a later one. A failover keeps the run's job and raises the
 * attempt: an item is only ever replaced by a put of its own attempt or a later one.
 */
@Internal
public final class WritersTable {
    static final String WRITER = "writer";
    static final String SUBTASK = "subtask";
    static final String ACKNOWLEDGED = "acknowledged";
    static final String PARALLELISM = "parallelism";
    static final String ATTEMPT = "attempt";
    static final String UPDATED = "updated";
    /** TTL attribute: epoch seconds after which DynamoDB deletes the item. */
    static final String EXPIRES = "expires";
    /**
     * How long an item outlives its last put. A running writer puts at least once a period (it
     * closes one), and a period is at most a month: items of a running job never expire, those of
     * ended jobs go within five weeks of their last put.
     */
    static final int KEEP_DAYS = 35;

    static final Duration KEEP = Duration.ofDays(KEEP_DAYS);

    private final DynamoDbAsyncClient client;
    private final String table;

    /** One writer: its sink ({@code group}), {@link #run}, subtask, the sink's parallelism and the task's attempt. */
    public record Writer(String group, String run, int subtask, int parallelism, int attempt) {
        String key() {
            return group + "#" + run;
        }
    }

    /**
     * The run the writers and the rotation of one job graph share: its job id, {@code submission}
     * (drawn when the job graph is built) and the checkpoint it restored from. The job id alone
     * does not tell runs apart: in application mode with high availability, and under operators
     * that keep it, a restore keeps the job id and starts again at attempt 0, where the previous
     * run's items (of any attempt) would count as current.
     */
    public static String run(String jobId, String submission, OptionalLong restoredCheckpointId) {
        return jobId + "/" + submission + "/"
                + (restoredCheckpointId.isPresent() ? String.valueOf(restoredCheckpointId.getAsLong()) : "new");
    }

    public WritersTable(DynamoDbAsyncClient client, TableNaming naming) {
        this.client = client;
        this.table = naming.writersTable();
    }

    public String name() {
        return table;
    }

    /**
     * Creates the table unless it exists (a concurrent creation by another writer counts), waits
     * until it is active, and turns TTL on ({@code expires}).
     */
    public CompletableFuture<Void> ensure() {
        return BookkeepingTables.ensure(client, table, "writers", 0, WRITER, SUBTASK)
                .thenCompose(active -> BookkeepingTables.expireBy(client, table, EXPIRES));
    }

    /**
     * Records that {@code writer} has written through {@code acknowledged} (epoch ms), never below
     * what its item says: a put overtaken by an older one changes nothing.
     */
    public CompletableFuture<Void> publish(Writer writer, long acknowledged, Instant now) {
        return put(writer, acknowledged, now, true);
    }

    /**
     * Records that {@code writer} (re)starts: nothing acknowledged yet, whatever an earlier attempt
     * of its subtask said; a start of an older attempt than the item's changes nothing.
     */
    public CompletableFuture<Void> start(Writer writer, Instant now) {
        return put(writer, Long.MIN_VALUE, now, false);
    }

    /*
     * A failover keeps the job id, so a restarted subtask writes the item its previous attempt
     * wrote, and a put of the cancelled attempt may still be in flight: the conditions let no
     * attempt's put replace a newer attempt's item.
     */
    private CompletableFuture<Void> put(Writer writer, long acknowledged, Instant now, boolean forwardOnly) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(WRITER, AttributeValue.fromS(writer.key()));
        item.put(SUBTASK, AttributeValue.fromS(subtask(writer.subtask())));
        item.put(ACKNOWLEDGED, AttributeValue.fromN(Long.toString(acknowledged)));
        item.put(PARALLELISM, AttributeValue.fromN(Integer.toString(writer.parallelism())));
        item.put(ATTEMPT, AttributeValue.fromN(Integer.toString(writer.attempt())));
        item.put(UPDATED, AttributeValue.fromS(now.toString()));
        item.put(EXPIRES, AttributeValue.fromN(Long.toString(now.plus(KEEP).getEpochSecond())));
        String condition = forwardOnly
                ? "attribute_not_exists(#t) OR #t < :t OR (#t = :t AND #a <= :a)"
                : "attribute_not_exists(#t) OR #t <= :t";
        Map<String, String> names = forwardOnly ? Map.of("#t", ATTEMPT, "#a", ACKNOWLEDGED) : Map.of("#t", ATTEMPT);
        Map<String, AttributeValue> values = forwardOnly
                ? Map.of(":t", item.get(ATTEMPT), ":a", item.get(ACKNOWLEDGED))
                : Map.of(":t", item.get(ATTEMPT));
        return client.putItem(b -> b.tableName(table)
                        .item(item)
                        .conditionExpression(condition)
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(values))
                .<Void>thenApply(response -> null)
                .exceptionallyCompose(error -> DynamoDbFailure.unwrap(error) instanceof ConditionalCheckFailedException
                        ? CompletableFuture.completedFuture(null) // a newer value or attempt is stored already
                        : CompletableFuture.failedFuture(error));
    }

    /**
     * The acknowledged watermark of {@code group}'s writers in {@code run}: the smallest of
     * them, once every subtask of the sink's parallelism has written one in attempt {@code
     * fromAttempt} or later (the parallelism of the writer updated last, so items of a parallelism
     * changed in place do not count); empty while one is missing or the table does not exist. An
     * item of an earlier attempt counts as missing: a failover keeps the job id, and what the
     * cancelled attempt's writers acknowledged is not what the restarted ones will write.
     */
    public CompletableFuture<OptionalLong> acknowledged(String group, String run, int fromAttempt) {
        return client.query(b -> b.tableName(table)
                        .keyConditionExpression("#w = :w")
                        .expressionAttributeNames(Map.of("#w", WRITER))
                        .expressionAttributeValues(Map.of(":w", AttributeValue.fromS(group + "#" + run)))
                        .consistentRead(true))
                .thenApply(response -> smallest(response, fromAttempt))
                .exceptionally(error -> {
                    if (DynamoDbFailure.unwrap(error) instanceof ResourceNotFoundException) {
                        return OptionalLong.empty();
                    }
                    throw new CompletionException(DynamoDbFailure.unwrap(error));
                });
    }

    static OptionalLong smallest(QueryResponse response, int fromAttempt) {
        List<Map<String, AttributeValue>> items = response.items().stream()
                .filter(item -> Integer.parseInt(item.get(ATTEMPT).n()) >= fromAttempt)
                .toList();
        Map<String, AttributeValue> newest = null;
        for (Map<String, AttributeValue> item : items) {
            if (newest == null
                    || Instant.parse(item.get(UPDATED).s())
                            .isAfter(Instant.parse(newest.get(UPDATED).s()))) {
                // as instants: Instant.toString writes no fraction at a whole second, and as text
                // "…:05Z" sorts after "…:05.5Z"
                newest = item;
            }
        }
        if (newest == null) {
            return OptionalLong.empty();
        }
        int parallelism = Integer.parseInt(newest.get(PARALLELISM).n());
        long smallest = Long.MAX_VALUE;
        int seen = 0;
        for (Map<String, AttributeValue> item : items) {
            int subtask = Integer.parseInt(item.get(SUBTASK).s());
            if (Integer.parseInt(item.get(PARALLELISM).n()) != parallelism || subtask >= parallelism) {
                continue;
            }
            seen++;
            smallest = Math.min(smallest, Long.parseLong(item.get(ACKNOWLEDGED).n()));
        }
        return seen == parallelism ? OptionalLong.of(smallest) : OptionalLong.empty();
    }

    private static String subtask(int index) {
        return String.format("%05d", index);
    }
}
