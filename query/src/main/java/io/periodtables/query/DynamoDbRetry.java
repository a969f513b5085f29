package io.periodtables.query;

import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Retries one DynamoDB request with exponential backoff when the failure is worth a retry
 * (throttling, 5xx, I/O, timeouts): the SDK's own retries are off in every client period-tables
 * builds, so the query owns its schedule. Any other failure is final.
 */
final class DynamoDbRetry {

    private static final long FIRST_BACKOFF_MILLIS = 50;
    private static final long MAX_BACKOFF_MILLIS = 2_000;

    private final int maxAttempts;

    DynamoDbRetry(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> request) {
        return attempt(request, 1);
    }

    private <T> CompletableFuture<T> attempt(Supplier<CompletableFuture<T>> request, int attempt) {
        return request.get().handle((value, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(value);
            }
            Throwable cause = unwrap(error);
            if (attempt >= maxAttempts || !isRetryable(cause)) {
                return CompletableFuture.<T>failedFuture(cause);
            }
            long backoff = Math.min(MAX_BACKOFF_MILLIS, FIRST_BACKOFF_MILLIS << Math.min(attempt - 1, 20));
            return CompletableFuture.supplyAsync(() -> null,
                            CompletableFuture.delayedExecutor(backoff, TimeUnit.MILLISECONDS))
                    .thenCompose(ignored -> attempt(request, attempt + 1));
        }).thenCompose(f -> f);
    }

    static boolean isRetryable(Throwable error) {
        Throwable t = unwrap(error);
        if (t instanceof AwsServiceException e) {
            return e.isThrottlingException() || e.statusCode() >= 500;
        }
        return t instanceof SdkClientException || t instanceof IOException;
    }

    static boolean isNotFound(Throwable error) {
        return unwrap(error) instanceof ResourceNotFoundException;
    }

    /** The cause inside the wrappers that futures put around it. */
    static Throwable unwrap(Throwable t) {
        Throwable current = t;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    /** A one-line description of a failure for messages and notes. */
    static String describe(Throwable error) {
        Throwable t = unwrap(error);
        if (t instanceof AwsServiceException e && e.awsErrorDetails() != null) {
            return e.awsErrorDetails().errorCode() + ": " + e.awsErrorDetails().errorMessage();
        }
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}
