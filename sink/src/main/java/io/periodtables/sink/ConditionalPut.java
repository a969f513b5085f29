package io.periodtables.sink;

import io.periodtables.core.item.ItemAttributes;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * Writes one entry with a growing attribute ({@link PeriodTableSink.Builder#replaceOnlyWhenNotSmaller})
 * as a conditional {@code PutItem}, since BatchWriteItem takes no conditions: the stored item is
 * replaced only when the attribute has not shrunk, so a replayed older bucket leaves a newer one
 * alone. A refused condition is an answer, not a failure; every other failure is left to the
 * caller, which files it like a batch of one ({@link FailedWrites}).
 */
final class ConditionalPut {

    private final DynamoDbAsyncClient client;
    /** The numeric attribute that must not shrink when an item is replaced. */
    private final String growing;

    private final SinkMetrics metrics;

    ConditionalPut(DynamoDbAsyncClient client, String growing, SinkMetrics metrics) {
        this.client = client;
        this.growing = growing;
        this.metrics = metrics;
    }

    /** Whether {@code entry} has the attribute to compare; a rejection the sink rerouted has none. */
    boolean applies(TableWriteEntry entry) {
        return entry.item().containsKey(growing);
    }

    /**
     * Puts {@code entry} unless the stored item's attribute is larger. Completes normally when
     * DynamoDB wrote it or refused the condition (both count as written), and exceptionally with
     * DynamoDB's error otherwise.
     */
    CompletableFuture<Void> put(TableWriteEntry entry) {
        PutItemRequest request = PutItemRequest.builder()
                .tableName(entry.table())
                .item(entry.item())
                .conditionExpression("attribute_not_exists(#pk) OR #growing <= :growing")
                .expressionAttributeNames(Map.of("#pk", ItemAttributes.PK, "#growing", growing))
                .expressionAttributeValues(Map.of(":growing", entry.item().get(growing)))
                .build();
        CompletableFuture<Void> answered = new CompletableFuture<>();
        metrics.timed(() -> client.putItem(request)).whenComplete((response, error) -> {
            if (error == null || DynamoDbErrors.unwrap(error) instanceof ConditionalCheckFailedException) {
                if (error != null) {
                    metrics.notReplaced.inc();
                }
                metrics.written(List.of(entry));
                answered.complete(null);
            } else {
                answered.completeExceptionally(error);
            }
        });
        return answered;
    }
}
