package io.periodtables.core.dynamodb;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.flink.annotation.Internal;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * The one classifier of failed DynamoDB calls, shared by the sink, the table owner and the
 * query: what the failure is. What to do about it stays with the caller (the sink retries a
 * {@link Kind#REFUSED} call within its attempt bound, the owner and the query give up on it).
 */
@Internal
public final class DynamoDbFailure {

    /** What a failure is. */
    public enum Kind {
        /** Capacity or request-rate throttling: the same call succeeds later, after backoff. */
        THROTTLED,
        /** 5xx, I/O, connection refused, timeouts: the same call may succeed later. */
        TRANSIENT,
        /**
         * An account or table limit: too many concurrent table operations, the table count, the
         * decrease quota ({@code LimitExceededException}). Retry later; may last a day.
         */
        QUOTA,
        /** The table is busy with another change, or already exists ({@code ResourceInUseException}). */
        TABLE_BUSY,
        /** The table does not exist ({@code ResourceNotFoundException}). */
        TABLE_MISSING,
        /** The request is invalid ({@code ValidationException}) for a reason other than the key schema. */
        VALIDATION,
        /** The table's key schema is not ours (pk, sk): every item would be refused. */
        WRONG_KEY_SCHEMA,
        /** Credentials refused or not permitted: retrying cannot help. */
        ACCESS_DENIED,
        /** Any other 4xx answer: the service refused this call as it stands. */
        REFUSED,
        /** Not a failure of the call at all: one of our own exceptions, or a bug. */
        NOT_DYNAMODB
    }

    /**
     * A throughput a CreateTable or UpdateTable sets, each bounded by the per-table throughput
     * quota, with the names DynamoDB's API gives it and its units.
     */
    public enum ThroughputSetting {
        PROVISIONED_THROUGHPUT("ProvisionedThroughput", "WriteCapacityUnits", "ReadCapacityUnits"),
        ON_DEMAND_THROUGHPUT("OnDemandThroughput", "MaxWriteRequestUnits", "MaxReadRequestUnits"),
        WARM_THROUGHPUT("WarmThroughput", "WriteUnitsPerSecond", "ReadUnitsPerSecond");

        private final List<String> names;

        ThroughputSetting(String... names) {
            this.names = List.of(names);
        }

        /** The request field, as DynamoDB's API names it. */
        public String field() {
            return names.get(0);
        }
    }

    private static final Set<String> THROTTLING = Set.of(
            "ProvisionedThroughputExceededException",
            "ThrottlingException",
            "Throttling",
            "RequestLimitExceeded",
            "RequestLimitExceededException",
            "TooManyRequestsException");

    // ExpiredToken is absent on purpose: the SDK refreshes session credentials, so it heals.
    private static final Set<String> ACCESS = Set.of(
            "AccessDeniedException",
            "UnrecognizedClientException",
            "InvalidSignatureException",
            "MissingAuthenticationToken",
            "MissingAuthenticationTokenException",
            "IncompleteSignature",
            "IncompleteSignatureException",
            "InvalidClientTokenId",
            "SignatureDoesNotMatch",
            "NotAuthorized");

    private static final Set<String> SERVER = Set.of("InternalServerError", "InternalFailure", "ServiceUnavailable");

    private DynamoDbFailure() {}

    /** What {@code error} (possibly wrapped by futures or the SDK) is. */
    public static Kind classify(Throwable error) {
        Throwable cause = unwrap(error);
        if (!(cause instanceof AwsServiceException service)) {
            // SdkClientException: I/O, connection refused, attempt and call timeouts
            return cause instanceof SdkClientException
                            || cause instanceof IOException
                            || cause instanceof TimeoutException
                    ? Kind.TRANSIENT
                    : Kind.NOT_DYNAMODB;
        }
        String code = errorCode(service);
        if (THROTTLING.contains(code) || service.isThrottlingException()) {
            return Kind.THROTTLED;
        }
        if (ACCESS.contains(code)) {
            return Kind.ACCESS_DENIED;
        }
        switch (code) {
            case "ResourceNotFoundException":
                return Kind.TABLE_MISSING;
            case "ResourceInUseException":
                return Kind.TABLE_BUSY;
            case "LimitExceededException":
                return Kind.QUOTA;
            case "ValidationException":
                return isKeySchemaMismatch(message(service)) ? Kind.WRONG_KEY_SCHEMA : Kind.VALIDATION;
            default:
                return service.statusCode() >= 500 || SERVER.contains(code) ? Kind.TRANSIENT : Kind.REFUSED;
        }
    }

    /**
     * The setting DynamoDB refused as above the per-table throughput quota, when {@code error} is
     * such a refusal. DynamoDB's docs bound provisioned, on-demand maximum and warm throughput by
     * the quota but name the answer only for none of them, so either answer counts: a {@code
     * LimitExceededException} or a {@code ValidationException} whose message names the setting
     * or one of its units (as a refused parameter is named). A {@code LimitExceededException}
     * naming none, such as too many concurrent table operations, is not one: it passes.
     */
    public static Optional<ThroughputSetting> throughputQuotaRefusal(Throwable error) {
        Kind kind = classify(error);
        if (kind != Kind.QUOTA && kind != Kind.VALIDATION) {
            return Optional.empty();
        }
        String said = message((AwsServiceException) unwrap(error));
        if (said == null) {
            return Optional.empty();
        }
        for (ThroughputSetting setting : ThroughputSetting.values()) {
            if (setting.names.stream().anyMatch(said::contains)) {
                return Optional.of(setting);
            }
        }
        return Optional.empty();
    }

    /** True for failures the same call may overcome later: throttling and transient ones. */
    public static boolean isRetryable(Throwable error) {
        Kind kind = classify(error);
        return kind == Kind.THROTTLED || kind == Kind.TRANSIENT;
    }

    /**
     * DynamoDB's messages when an item's key attributes do not fit the table's key schema. Our
     * items always carry non-empty string {@code pk} and {@code sk}, so on a table of ours these
     * cannot occur: the table is someone else's.
     */
    public static boolean isKeySchemaMismatch(String message) {
        return message != null
                && (message.contains("does not match the schema")
                        || message.contains("One of the required keys was not given a value")
                        || message.startsWith("Missing the key"));
    }

    /** True when the failure's message contains {@code text}, ignoring case. */
    public static boolean messageContains(Throwable error, String text) {
        String message = unwrap(error).getMessage();
        return message != null && message.toLowerCase(Locale.ROOT).contains(text.toLowerCase(Locale.ROOT));
    }

    /** The error behind the wrappers of {@code CompletableFuture} and the SDK. */
    public static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException
                        || cause instanceof ExecutionException
                        || (cause instanceof SdkClientException && cause.getCause() instanceof AwsServiceException))
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** One line for logs and messages: the error code (or type), HTTP status and message. */
    public static String describe(Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof AwsServiceException service) {
            return errorCode(service) + " (HTTP " + service.statusCode() + "): " + message(service);
        }
        String type = cause instanceof IOException || cause instanceof TimeoutException || cause.getCause() == null
                ? cause.getClass().getSimpleName()
                : cause.getClass().getSimpleName() + " caused by "
                        + cause.getCause().getClass().getSimpleName();
        return type + ": " + cause.getMessage();
    }

    private static String message(AwsServiceException service) {
        return service.awsErrorDetails() != null && service.awsErrorDetails().errorMessage() != null
                ? service.awsErrorDetails().errorMessage()
                : service.getMessage();
    }

    private static String errorCode(AwsServiceException service) {
        return service.awsErrorDetails() != null && service.awsErrorDetails().errorCode() != null
                ? service.awsErrorDetails().errorCode()
                : service.getClass().getSimpleName();
    }
}
