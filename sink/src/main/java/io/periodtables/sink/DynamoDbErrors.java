package io.periodtables.sink;

import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The one place that decides what a failed DynamoDB call means for the sink: retry it, split
 * it, create a table, or stop the job. Retries are bounded per entry by {@code sink.max-attempts}
 * elsewhere, so an unknown error is retried rather than guessed fatal.
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

    private static final Set<String> THROTTLING = Set.of(
            "ProvisionedThroughputExceededException", "ThrottlingException", "Throttling",
            "RequestLimitExceeded", "RequestLimitExceededException", "TooManyRequestsException");

    // ExpiredToken is absent on purpose: the SDK refreshes session credentials, so it heals.
    private static final Set<String> ACCESS = Set.of(
            "AccessDeniedException", "UnrecognizedClientException", "InvalidSignatureException",
            "MissingAuthenticationToken", "MissingAuthenticationTokenException", "IncompleteSignature",
            "IncompleteSignatureException", "InvalidClientTokenId", "SignatureDoesNotMatch", "NotAuthorized");

    private DynamoDbErrors() {}

    static Kind classify(Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof AwsServiceException service) {
            String code = errorCode(service);
            if (THROTTLING.contains(code) || service.isThrottlingException()) {
                return Kind.THROTTLED;
            }
            if (ACCESS.contains(code)) {
                return Kind.ACCESS_DENIED;
            }
            if ("ResourceNotFoundException".equals(code)) {
                return Kind.TABLE_MISSING;
            }
            if ("ValidationException".equals(code)) {
                return isKeySchemaMismatch(service.awsErrorDetails() == null ? null
                        : service.awsErrorDetails().errorMessage()) ? Kind.WRONG_KEY_SCHEMA : Kind.VALIDATION;
            }
            return Kind.TRANSIENT;
        }
        // SdkClientException (I/O, connection refused, attempt timeouts) and anything else.
        return Kind.TRANSIENT;
    }

    /**
     * DynamoDB's messages when an item's key attributes do not fit the table's key schema. Our
     * items always carry non-empty string {@code pk} and {@code sk}, so on a table of ours these
     * cannot occur: the table is someone else's.
     */
    static boolean isKeySchemaMismatch(String message) {
        return message != null && (message.contains("does not match the schema")
                || message.contains("One of the required keys was not given a value")
                || message.startsWith("Missing the key"));
    }

    /** The error behind the wrappers of {@code CompletableFuture} and the SDK. */
    static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException
                || (cause instanceof SdkClientException && cause.getCause() instanceof AwsServiceException))
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** One line for logs and rejection messages: the error code (or type) and message. */
    static String describe(Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof AwsServiceException service) {
            return errorCode(service) + " (HTTP " + service.statusCode() + "): "
                    + (service.awsErrorDetails() != null ? service.awsErrorDetails().errorMessage() : service.getMessage());
        }
        String type = cause instanceof IOException || cause.getCause() == null
                ? cause.getClass().getSimpleName()
                : cause.getClass().getSimpleName() + " caused by " + cause.getCause().getClass().getSimpleName();
        return type + ": " + cause.getMessage();
    }

    private static String errorCode(AwsServiceException service) {
        return service.awsErrorDetails() != null && service.awsErrorDetails().errorCode() != null
                ? service.awsErrorDetails().errorCode()
                : service.getClass().getSimpleName();
    }
}
