package io.periodtables.query;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Waiting for a table read on the caller's thread, with the failure as the query's own exception. */
final class Futures {

    private Futures() {}

    static <T> T await(CompletableFuture<T> future, String what) {
        try {
            return future.join();
        } catch (CompletionException e) {
            Throwable cause = DynamoDbRetry.unwrap(e);
            if (cause instanceof QueryFailedException failed) {
                throw failed;
            }
            throw new QueryFailedException(what + " failed: " + DynamoDbRetry.describe(cause), cause);
        }
    }
}
