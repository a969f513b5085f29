package io.periodtables.query;

import io.periodtables.core.dynamodb.Backoff;
import io.periodtables.core.dynamodb.DynamoDbFailure;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Retries one DynamoDB request after the project's {@link Backoff} when the failure is worth a retry
 * (throttling, 5xx, I/O, timeouts, as {@link DynamoDbFailure} classifies it): the SDK's own retries are off in every
 * client period-tables builds, so the query owns its schedule. Any other failure is final.
 */
final class DynamoDbRetry {

    private static final Backoff BACKOFF = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(2));

    private final int maxAttempts;

    DynamoDbRetry(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> request) {
        return attempt(request, 1);
    }

    private <T> CompletableFuture<T> attempt(Supplier<CompletableFuture<T>> request, int attempt) {
        return request.get()
                .handle((value, error) -> {
                    if (error == null) {
                        return CompletableFuture.completedFuture(value);
                    }
                    Throwable cause = unwrap(error);
                    if (attempt >= maxAttempts || !isRetryable(cause)) {
                        return CompletableFuture.<T>failedFuture(cause);
                    }
                    long backoff = BACKOFF.delayMillis(attempt);
                    return CompletableFuture.supplyAsync(
                                    () -> null, CompletableFuture.delayedExecutor(backoff, TimeUnit.MILLISECONDS))
                            .thenCompose(ignored -> attempt(request, attempt + 1));
                })
                .thenCompose(f -> f);
    }

    static boolean isRetryable(Throwable error) {
        return DynamoDbFailure.isRetryable(error);
    }

    static boolean isNotFound(Throwable error) {
        return DynamoDbFailure.classify(error) == DynamoDbFailure.Kind.TABLE_MISSING;
    }

    /** The cause inside the wrappers that futures put around it. */
    static Throwable unwrap(Throwable t) {
        return DynamoDbFailure.unwrap(t);
    }

    /** A one-line description of a failure for messages and notes. */
    static String describe(Throwable error) {
        return DynamoDbFailure.describe(error);
    }
}
