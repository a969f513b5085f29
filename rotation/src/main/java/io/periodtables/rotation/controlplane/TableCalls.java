package io.periodtables.rotation.controlplane;

import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.period.TableNaming;
import io.periodtables.rotation.lifecycle.ManagedTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.waiters.WaiterOverrideConfiguration;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbAsyncWaiter;

/**
 * Single attempts of {@link TableManager}'s DynamoDB calls (the manager retries them):
 * DescribeTable as a question ("is it there, and how?"), the SDK waiter for ACTIVE polling after
 * {@value #FIRST_POLL_MILLIS} ms, then twice as long each time up to {@link
 * TableManagerSettings#pollInterval()}, ListTables over our prefix, whether a table
 * carries our {@code managed-by} tag, turning TTL on, and deleting a table of ours.
 */
public final class TableCalls implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TableCalls.class);

    private final DynamoDbAsyncClient client;
    private final TableNaming naming;
    private final DynamoDbAsyncWaiter waiter;

    /**
     * The first poll for ACTIVE after a table operation: a table often is ACTIVE within a second
     * (an emulator in half of it), and the first table's writes and the end of a bounded input
     * wait for that answer; at the fixed 2 s interval a run spent on average a second and a half
     * of each such wait after the table was there (issue 58).
     */
    static final long FIRST_POLL_MILLIS = 200;

    TableCalls(
            DynamoDbAsyncClient client,
            TableNaming naming,
            ScheduledExecutorService scheduler,
            TableManagerSettings settings) {
        this.client = client;
        this.naming = naming;
        Duration interval = settings.pollInterval();
        // the doubling from the first poll to the interval adds at most log2(interval / first) polls
        long polls = Math.max(1, settings.activeTimeout().toMillis() / interval.toMillis())
                + 64
                - Long.numberOfLeadingZeros(Math.max(1, interval.toMillis() / FIRST_POLL_MILLIS));
        this.waiter = DynamoDbAsyncWaiter.builder()
                .client(client)
                .scheduledExecutorService(scheduler)
                .overrideConfiguration(WaiterOverrideConfiguration.builder()
                        .backoffStrategyV2(pollBackoff(settings))
                        .maxAttempts((int) Math.min(Integer.MAX_VALUE - 1, polls) + 1)
                        .waitTimeout(settings.activeTimeout())
                        .build())
                .build();
    }

    /**
     * The waits between two polls for ACTIVE: {@value #FIRST_POLL_MILLIS} ms (at most the poll
     * interval), doubling up to {@link TableManagerSettings#pollInterval()}.
     */
    static BackoffStrategy pollBackoff(TableManagerSettings settings) {
        Duration interval = settings.pollInterval();
        // The SDK's waiter waits computeDelay(n + 2) after its n-th poll, and this strategy gives
        // base * 2^(attempt - 2): the first wait is twice the base.
        Duration base = Duration.ofMillis(Math.max(1, Math.min(FIRST_POLL_MILLIS, interval.toMillis()) / 2));
        return BackoffStrategy.exponentialDelayWithoutJitter(base, interval);
    }

    /** Completes with the table once it is ACTIVE, after checking its key schema. */
    CompletableFuture<ManagedTable> untilActive(String table, boolean created) {
        return waiter.waitUntilTableExists(b -> b.tableName(table)).thenApply(response -> {
            var description = response.matched()
                    .response()
                    .orElseThrow(() -> new CompletionException(response.matched()
                            .exception()
                            .orElseGet(() ->
                                    new IllegalStateException("waiting for table " + table + " to be ACTIVE failed"))))
                    .table();
            TableRequests.checkKeySchema(description);
            return ManagedTable.of(description, created);
        });
    }

    /**
     * Completes with the table once DynamoDB reports it ACTIVE and warmed to at least {@code
     * warmWrites} write units per second (its {@code WarmThroughput} status {@code ACTIVE});
     * retried by the caller while it is not ({@link RetryLaterException}).
     */
    CompletableFuture<ManagedTable> untilWarm(String table, long warmWrites) {
        return client.describeTable(b -> b.tableName(table)).thenApply(response -> {
            var warm = response.table().warmThroughput();
            boolean ready = "ACTIVE".equals(response.table().tableStatusAsString())
                    && warm != null
                    && "ACTIVE".equals(warm.statusAsString())
                    && warm.writeUnitsPerSecond() != null
                    && warm.writeUnitsPerSecond() >= warmWrites;
            if (!ready) {
                throw new RetryLaterException(
                        "table " + table + " is still warming to " + warmWrites + " writes/s", null, null);
            }
            return ManagedTable.of(response.table(), false);
        });
    }

    /**
     * The table as DescribeTable sees it, or empty when it does not exist; fails with
     * {@link TableSchemaMismatchException} for a table of our name with another key schema.
     */
    CompletableFuture<Optional<ManagedTable>> describe(String table) {
        return client.describeTable(b -> b.tableName(table)).handle((response, error) -> {
            if (error == null) {
                TableRequests.checkKeySchema(response.table());
                return Optional.of(ManagedTable.of(response.table(), false));
            }
            if (ControlPlaneErrors.isNotFound(error)) {
                return Optional.empty();
            }
            throw new CompletionException(ControlPlaneErrors.unwrap(error));
        });
    }

    CompletableFuture<List<String>> list() {
        return listFrom(null, new ArrayList<>());
    }

    private CompletableFuture<List<String>> listFrom(String start, List<String> names) {
        return client.listTables(b -> b.exclusiveStartTableName(start)).thenCompose(page -> {
            page.tableNames().stream().filter(naming::hasOurPrefix).forEach(names::add);
            return page.lastEvaluatedTableName() == null
                    ? CompletableFuture.completedFuture(names)
                    : listFrom(page.lastEvaluatedTableName(), names);
        });
    }

    /** True when the table carries our tag, false when it does not; fails when its tags cannot be read. */
    CompletableFuture<Boolean> hasOurTag(String table) {
        return describeArn(table)
                .thenCompose(arn -> tagsFrom(arn, null, new LinkedHashMap<>()))
                .handle((tags, error) -> {
                    if (error == null) {
                        return TableNaming.MANAGED_BY_VALUE.equals(tags.get(TableNaming.MANAGED_BY_TAG));
                    }
                    throw new CompletionException(ControlPlaneErrors.unwrap(error));
                });
    }

    private CompletableFuture<String> describeArn(String table) {
        return client.describeTable(b -> b.tableName(table))
                .thenApply(r -> r.table().tableArn());
    }

    private CompletableFuture<Map<String, String>> tagsFrom(String arn, String token, Map<String, String> tags) {
        return client.listTagsOfResource(b -> b.resourceArn(arn).nextToken(token))
                .thenCompose(page -> {
                    page.tags().forEach(t -> tags.put(t.key(), t.value()));
                    return page.nextToken() == null
                            ? CompletableFuture.completedFuture(tags)
                            : tagsFrom(arn, page.nextToken(), tags);
                });
    }

    /** One attempt at turning TTL on (attribute {@code ttl}); true when this call turned it on. */
    CompletableFuture<Boolean> enableTtl(String table) {
        return client.describeTimeToLive(b -> b.tableName(table)).thenCompose(ttl -> {
            TimeToLiveStatus status = ttl.timeToLiveDescription() == null
                    ? null
                    : ttl.timeToLiveDescription().timeToLiveStatus();
            if (status == TimeToLiveStatus.ENABLED || status == TimeToLiveStatus.ENABLING) {
                return CompletableFuture.completedFuture(false);
            }
            return client.updateTimeToLive(b -> b.tableName(table)
                            .timeToLiveSpecification(t -> t.enabled(true).attributeName(ItemAttributes.TTL)))
                    .handle((ok, error) -> {
                        if (error != null && !ControlPlaneErrors.isTtlAlreadyEnabled(error)) {
                            throw new CompletionException(ControlPlaneErrors.unwrap(error));
                        }
                        if (error == null) {
                            LOG.info("Enabled TTL on table {} (attribute ttl): tables.ttl is set", table);
                        }
                        return error == null;
                    });
        });
    }

    /** One attempt at deleting a table that carries our tag and has no deletion protection. */
    CompletableFuture<TableManager.Deletion> delete(String table) {
        return describe(table).thenCompose(found -> {
            if (found.isEmpty()) {
                return CompletableFuture.completedFuture(TableManager.Deletion.DELETED);
            }
            if (found.get().deletionProtected()) {
                return CompletableFuture.completedFuture(TableManager.Deletion.PROTECTED);
            }
            return hasOurTag(table)
                    .thenCompose(ours -> !ours
                            ? CompletableFuture.completedFuture(TableManager.Deletion.NOT_OURS)
                            : client.deleteTable(b -> b.tableName(table)).handle((ok, error) -> {
                                if (error == null || ControlPlaneErrors.isNotFound(error)) {
                                    return TableManager.Deletion.DELETED;
                                }
                                if (ControlPlaneErrors.isDeletionProtected(error)) {
                                    return TableManager.Deletion.PROTECTED;
                                }
                                throw new CompletionException(ControlPlaneErrors.unwrap(error));
                            }));
        });
    }

    /** Says in the log what {@link TableManager#delete} did, and why. */
    static TableManager.Deletion logged(String table, TableManager.Deletion deletion) {
        switch (deletion) {
            case DELETED -> LOG.info("Deleted table {}: its period ended longer ago than tables.retention", table);
            case PROTECTED ->
                LOG.warn("Table {} is past tables.retention but has deletion protection; not deleting it", table);
            default ->
                LOG.info(
                        "Table {} is past tables.retention but does not carry the tag {}={} (or its tags"
                                + " cannot be read); leaving it",
                        table,
                        TableNaming.MANAGED_BY_TAG,
                        TableNaming.MANAGED_BY_VALUE);
        }
        return deletion;
    }

    @Override
    public void close() {
        waiter.close();
    }
}
