package io.periodtables.query;

import io.periodtables.core.period.TableNaming;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.ListTagsOfResourceResponse;
import software.amazon.awssdk.services.dynamodb.model.Tag;

/**
 * How many write shards a table's items are spread over: the table's
 * {@value TableNaming#SHARDS_TAG} tag (written by the rotation's table manager when it creates the
 * table), else the configured {@code tables.shards}. A table keeps its shard count for life,
 * so the answer is cached per table; a table that does not exist is reported as such.
 */
final class TableShards {

    private final DynamoDbAsyncClient client;
    private final DynamoDbRetry retry;
    private final int configuredShards;
    private final Map<String, CompletableFuture<Optional<Shape>>> known = new ConcurrentHashMap<>();

    TableShards(DynamoDbAsyncClient client, DynamoDbRetry retry, int configuredShards) {
        this.client = client;
        this.retry = retry;
        this.configuredShards = configuredShards;
    }

    /** The shard count of {@code table}, or empty when the table does not exist. */
    CompletableFuture<Optional<Shape>> of(String table) {
        CompletableFuture<Optional<Shape>> shape = known.computeIfAbsent(table, this::lookUp);
        // a failed look-up is not remembered: the next query asks again
        shape.whenComplete((found, error) -> {
            if (error != null) {
                known.remove(table, shape);
            }
        });
        return shape;
    }

    private CompletableFuture<Optional<Shape>> lookUp(String table) {
        return retry.call(() -> client.describeTable(b -> b.tableName(table)))
                .handle((DescribeTableResponse described, Throwable error) -> {
                    if (error != null && DynamoDbRetry.isNotFound(error)) {
                        return CompletableFuture.completedFuture(Optional.<Shape>empty());
                    }
                    if (error != null) {
                        return CompletableFuture.<Optional<Shape>>failedFuture(DynamoDbRetry.unwrap(error));
                    }
                    return tagged(table, described.table().tableArn()).thenApply(Optional::of);
                })
                .thenCompose(f -> f);
    }

    private CompletableFuture<Shape> tagged(String table, String arn) {
        return tagValue(arn, null).handle((value, error) -> {
            if (error != null) {
                return fallback(table, "tags cannot be read (" + DynamoDbRetry.describe(error) + ")");
            }
            if (value.isEmpty()) {
                return fallback(table, "no " + TableNaming.SHARDS_TAG + " tag");
            }
            try {
                int shards = Integer.parseInt(value.get().trim());
                if (shards >= 1 && shards <= 100) {
                    return new Shape(shards, null);
                }
            } catch (NumberFormatException ignored) {
                // reported below
            }
            return fallback(table, TableNaming.SHARDS_TAG + " tag '" + value.get() + "' is not a shard count 1-100");
        });
    }

    private Shape fallback(String table, String why) {
        return new Shape(configuredShards, "shard count " + configuredShards + " from tables.shards: " + why);
    }

    private CompletableFuture<Optional<String>> tagValue(String arn, String token) {
        return retry.call(
                        () -> client.listTagsOfResource(b -> b.resourceArn(arn).nextToken(token)))
                .thenCompose((ListTagsOfResourceResponse page) -> {
                    for (Tag tag : page.tags()) {
                        if (TableNaming.SHARDS_TAG.equals(tag.key())) {
                            return CompletableFuture.completedFuture(Optional.of(tag.value()));
                        }
                    }
                    return page.nextToken() == null
                            ? CompletableFuture.completedFuture(Optional.<String>empty())
                            : tagValue(arn, page.nextToken());
                });
    }

    /**
     * A table's shard count; {@code fallbackNote} says that it came from the configuration
     * instead of the table's tag, and why (null when it came from the tag).
     */
    record Shape(int shards, String fallbackNote) {}
}
