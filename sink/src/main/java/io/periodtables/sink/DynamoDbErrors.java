package io.periodtables.sink;

import io.periodtables.core.dynamodb.DynamoDbFailure;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingReason;

/**
 * What a failed DynamoDB call, as {@link DynamoDbFailure} classifies it, means for the sink: retry
 * it, split it, create a table, or stop the job. Retries are bounded per entry by
 * {@code sink.max-attempts} elsewhere, so an unknown error is retried rather than guessed fatal.
 */
final class DynamoDbErrors {

    /** What the sink does about an error. */
    enum Kind {
        /** Capacity or request-rate throttling: retry with backoff. */
        THROTTLED,
        /** 5xx, I/O, timeouts and anything unrecognised: retry with backoff. */
        TRANSIENT,
        /** The request is invalid: split the batch until the one invalid item is alone. */
        VALIDATION,
        /**
         * The table exists but its key schema is not ours (pk, sk): every item would be refused,
         * so isolating "poison" items would file valid readings as rejected. Fail the job.
         */
        WRONG_KEY_SCHEMA,
        /** The table does not exist (yet): call the missing-table handler, then retry. */
        TABLE_MISSING,
        /** Credentials refused or not permitted: retrying cannot help, fail the job now. */
        ACCESS_DENIED
    }

    private DynamoDbErrors() {}

    static Kind classify(Throwable error) {
        switch (DynamoDbFailure.classify(error)) {
            case THROTTLED:
                return Kind.THROTTLED;
            case ACCESS_DENIED:
                return Kind.ACCESS_DENIED;
            case TABLE_MISSING:
                return Kind.TABLE_MISSING;
            case VALIDATION:
                return Kind.VALIDATION;
            case WRONG_KEY_SCHEMA:
                return Kind.WRONG_KEY_SCHEMA;
            default:
                // 5xx, I/O, quotas, busy tables and unknown answers: retried within sink.max-attempts
                return Kind.TRANSIENT;
        }
    }

    /**
     * The tables DynamoDB names as throttled at their on-demand ceiling ({@code OnDemandThroughput}):
     * a ProvisionedThroughputExceededException's {@code ThrottlingReasons} of type {@code
     * ...MaxOnDemandThroughputExceeded}, by table name; empty for any other error.
     */
    static List<String> onDemandCeilingTables(Throwable error) {
        if (!(unwrap(error) instanceof ProvisionedThroughputExceededException throttled)
                || !throttled.hasThrottlingReasons()) {
            return List.of();
        }
        List<String> tables = new ArrayList<>();
        for (ThrottlingReason reason : throttled.throttlingReasons()) {
            if (reason.reason() != null
                    && reason.reason().contains("MaxOnDemandThroughputExceeded")
                    && reason.resource() != null) {
                tables.add(reason.resource().substring(reason.resource().lastIndexOf('/') + 1));
            }
        }
        return tables;
    }

    /** The error behind the wrappers of {@code CompletableFuture} and the SDK. */
    static Throwable unwrap(Throwable error) {
        return DynamoDbFailure.unwrap(error);
    }

    /** One line for logs and rejection messages: the error code (or type) and message. */
    static String describe(Throwable error) {
        return DynamoDbFailure.describe(error);
    }
}
