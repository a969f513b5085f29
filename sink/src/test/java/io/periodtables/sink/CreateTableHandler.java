package io.periodtables.sink;

import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.owner.MissingTableHandler;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;

/**
 * The tests' missing-table handler: creates the table in dynalite with the SDK (key
 * {@code pk}/{@code sk}, on demand) and records each call, as the rotation's table manager will.
 */
final class CreateTableHandler implements MissingTableHandler {

    /** Every table name the handlers of this JVM were asked for, in order. */
    static final List<String> CALLS = new CopyOnWriteArrayList<>();

    private final DynamoDbAsyncClient client;

    private CreateTableHandler(DynamoDbAsyncClient client) {
        this.client = client;
    }

    static MissingTableHandler.Factory factory() {
        return config -> new CreateTableHandler(DynamoDbClients.of(config).newAsyncClient(2));
    }

    @Override
    public CompletableFuture<Verdict> ensureTable(String tableName, Arrival arrival, long eventTime) {
        CALLS.add(tableName);
        return client.createTable(DynamoDbTables.createRequest(tableName)).handle((created, error) -> {
            if (error != null && !(DynamoDbErrors.unwrap(error) instanceof ResourceInUseException)) {
                throw new CompletionException(error);
            }
            return Verdict.created();
        });
    }

    @Override
    public void close() {
        client.close();
    }
}
