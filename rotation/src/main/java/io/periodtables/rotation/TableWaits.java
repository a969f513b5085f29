package io.periodtables.rotation;

import software.amazon.awssdk.core.retry.backoff.FixedDelayBackoffStrategy;
import software.amazon.awssdk.core.waiters.WaiterOverrideConfiguration;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbAsyncWaiter;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;

/**
 * DescribeTable as a question ("is it there, and how?") and the SDK waiter for ACTIVE, polling
 * at {@link TableManagerSettings#pollInterval()} on the manager's scheduler.
 */
final class TableWaits implements AutoCloseable {
    private final DynamoDbAsyncClient client;
    private final DynamoDbAsyncWaiter waiter;

    TableWaits(DynamoDbAsyncClient client, ScheduledExecutorService scheduler, TableManagerSettings settings) {
        this.client = client;
        long polls = Math.max(1, settings.activeTimeout().toMillis() / settings.pollInterval().toMillis());
        this.waiter = DynamoDbAsyncWaiter.builder()
                .client(client)
                .scheduledExecutorService(scheduler)
                .overrideConfiguration(WaiterOverrideConfiguration.builder()
                        .backoffStrategy(FixedDelayBackoffStrategy.create(settings.pollInterval()))
                        .maxAttempts((int) Math.min(Integer.MAX_VALUE - 1, polls) + 1)
                        .waitTimeout(settings.activeTimeout())
                        .build())
                .build();
    }

    /** The table's description, or empty when it does not exist. */
    CompletableFuture<Optional<TableDescription>> describe(String table) {
        return client.describeTable(b -> b.tableName(table)).handle((response, error) -> {
            if (error == null) {
                return Optional.of(response.table());
            }
            if (ControlPlaneErrors.isNotFound(error)) {
                return Optional.empty();
            }
            throw new CompletionException(ControlPlaneErrors.unwrap(error));
        });
    }

    /** Completes with the table's description once it is ACTIVE. */
    CompletableFuture<TableDescription> untilActive(String table) {
        return waiter.waitUntilTableExists(b -> b.tableName(table)).thenApply(response -> response.matched().response()
                .orElseThrow(() -> new CompletionException(response.matched().exception()
                        .orElseGet(() -> new IllegalStateException("waiting for table " + table + " to be ACTIVE failed"))))
                .table());
    }

    @Override
    public void close() {
        waiter.close();
    }
}
