package io.periodtables.rotation.controlplane;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.core.period.TableNaming;
import io.periodtables.rotation.lifecycle.ManagedTable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * {@link TableManager}'s ensure: CreateTable (an existing table counts), wait for ACTIVE, turn
 * TTL on. Concurrent ensures of one table share one operation; the first caller's capacity wins.
 */
public final class TableCreation {
    private static final Logger LOG = LoggerFactory.getLogger(TableCreation.class);

    private final PeriodTablesConfig config;
    private final DynamoDbAsyncClient client;
    private final TableCalls calls;
    private final RetryLoop retry;
    private final Function<String, CompletableFuture<Boolean>> enableTtl;
    private final Map<String, CompletableFuture<ManagedTable>> ensuring = new ConcurrentHashMap<>();

    TableCreation(
            PeriodTablesConfig config,
            DynamoDbAsyncClient client,
            TableCalls calls,
            RetryLoop retry,
            Function<String, CompletableFuture<Boolean>> enableTtl) {
        this.config = config;
        this.client = client;
        this.calls = calls;
        this.retry = retry;
        this.enableTtl = enableTtl;
    }

    /** {@code warmWrites} above 0: an on-demand table is created prewarmed to that many write units per second. */
    CompletableFuture<ManagedTable> ensure(
            String name, Capacity capacity, Map<String, String> tags, boolean ttl, long warmWrites) {
        CompletableFuture<ManagedTable> mine = new CompletableFuture<>();
        CompletableFuture<ManagedTable> running = ensuring.putIfAbsent(name, mine);
        if (running != null) {
            return running.copy();
        }
        AtomicBoolean created = new AtomicBoolean();
        retry.run(
                        "create table " + name,
                        () -> client.createTable(TableRequests.create(config, name, capacity, tags, warmWrites))
                                .handle((response, error) -> {
                                    if (error == null) {
                                        created.set(true);
                                    } else if (!ControlPlaneErrors.isInUse(error)) {
                                        throw new CompletionException(
                                                ControlPlaneErrors.ofTableRequest(error, name, config));
                                    } // in use: it exists (or someone else is creating it); wait for it
                                    return null;
                                })
                                .thenCompose(ignored -> calls.untilActive(name, created.get())))
                .thenCompose(table -> ttl
                        ? enableTtlQuietly(name).thenApply(ignored -> table)
                        : CompletableFuture.completedFuture(table))
                .whenComplete((table, error) -> {
                    ensuring.remove(name, mine);
                    if (error != null) {
                        mine.completeExceptionally(ControlPlaneErrors.unwrap(error));
                    } else {
                        if (table.created()) {
                            LOG.info("Created table {} ({}, tags {})", name, capacity, tags);
                        }
                        mine.complete(table);
                    }
                });
        return mine.copy();
    }

    /** The table is usable without TTL (items just do not expire), so a failure is only reported. */
    private CompletableFuture<Void> enableTtlQuietly(String name) {
        return enableTtl.apply(name).handle((ok, error) -> {
            if (error != null) {
                LOG.warn(
                        "Could not enable TTL on {} (attribute ttl): {}; the rotation tries again",
                        name,
                        ControlPlaneErrors.describe(error));
            }
            return null;
        });
    }

    Map<String, String> baseTags(String kind) {
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put(TableNaming.MANAGED_BY_TAG, TableNaming.MANAGED_BY_VALUE);
        tags.put(TableManager.TAG_KIND, kind);
        tags.put(TableNaming.SHARDS_TAG, String.valueOf(config.get(TableKeys.TABLES_SHARDS)));
        return tags;
    }
}
