package io.periodtables.rotation;

import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.LimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

import java.io.IOException;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * The one place that decides what a control-plane failure means: retry with backoff
 * (throttling, 5xx, I/O, too many concurrent table operations, a table busy with another
 * change), or give up; and the few error answers that are really successes or facts about
 * the table ("TimeToLive is already enabled", a same-value throughput update, deletion
 * protection, DynamoDB Local's missing tagging support).
 */
final class ControlPlaneErrors {
    private static final Set<String> TRANSIENT_CODES = Set.of(
            "ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded",
            "InternalServerError", "InternalFailure", "ServiceUnavailable", "LimitExceededException",
            "ResourceInUseException");

    private ControlPlaneErrors() {}

    /** The cause inside the wrappers that futures put around it. */
    static Throwable unwrap(Throwable t) {
        Throwable current = t;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    /** True when the same call may succeed later: worth a retry with backoff. */
    static boolean isTransient(Throwable error) {
        Throwable t = unwrap(error);
        if (t instanceof LimitExceededException || t instanceof ResourceInUseException) {
            return true;
        }
        if (t instanceof AwsServiceException) {
            AwsServiceException e = (AwsServiceException) t;
            String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
            return e.isThrottlingException() || e.statusCode() >= 500 || (code != null && TRANSIENT_CODES.contains(code));
        }
        return t instanceof SdkClientException || t instanceof IOException || t instanceof TimeoutException;
    }

    static boolean isNotFound(Throwable t) {
        return unwrap(t) instanceof ResourceNotFoundException;
    }

    static boolean isInUse(Throwable t) {
        return unwrap(t) instanceof ResourceInUseException;
    }

    static boolean isLimitExceeded(Throwable t) {
        Throwable u = unwrap(t);
        return u instanceof LimitExceededException || "LimitExceededException".equals(errorCode(u));
    }

    /** UpdateTimeToLive on a table whose TTL is already on: the goal is reached. */
    static boolean isTtlAlreadyEnabled(Throwable t) {
        return messageContains(t, "already enabled");
    }

    /** UpdateTable with the values the table already has (real DynamoDB refuses it). */
    static boolean isSameThroughput(Throwable t) {
        return messageContains(t, "will not change") || messageContains(t, "equals the current value");
    }

    /** DeleteTable on a table with deletion protection. */
    static boolean isDeletionProtected(Throwable t) {
        return messageContains(t, "protected against deletion");
    }

    /** DynamoDB Local answers every tagging call with this; real DynamoDB never does. */
    static boolean isTaggingUnsupported(Throwable t) {
        return messageContains(t, "tagging is not currently supported");
    }

    static String describe(Throwable t) {
        Throwable u = unwrap(t);
        String message = u.getMessage();
        return u.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    private static String errorCode(Throwable t) {
        if (t instanceof AwsServiceException && ((AwsServiceException) t).awsErrorDetails() != null) {
            return ((AwsServiceException) t).awsErrorDetails().errorCode();
        }
        return null;
    }

    private static boolean messageContains(Throwable t, String text) {
        String message = unwrap(t).getMessage();
        return message != null && message.toLowerCase(Locale.ROOT).contains(text);
    }
}
