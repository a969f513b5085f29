package io.periodtables.verification;

import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.awscore.exception.AwsServiceException;

/**
 * An AWS call refused for want of a permission, said in one line that names the IAM action the
 * caller lacks ({@code docs/operations.md} lists the policy {@code verify} needs). The action comes
 * from the service's message ("… is not authorized to perform: dynamodb:CreateTable on …") when it
 * names one, else from the call that was refused.
 */
final class PermissionDenied extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final Pattern ACTION = Pattern.compile("perform: ([A-Za-z0-9-]+:[A-Za-z0-9]+)");

    private final String action;

    private PermissionDenied(String action, Throwable cause) {
        super(action, cause);
        this.action = action;
    }

    /** The IAM action refused, e.g. {@code dynamodb:CreateTable}. */
    String action() {
        return action;
    }

    /** The one line the command prints. */
    String line() {
        return "FAIL permissions: expected the caller to be allowed " + action + ", found AccessDenied for it"
                + " (docs/operations.md#verify lists the policy verify needs)";
    }

    /** Runs an AWS call, turning an access denial into a {@link PermissionDenied} naming {@code action}. */
    static <T> T call(String action, Supplier<T> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            Optional<PermissionDenied> denied = of(e, action);
            if (denied.isPresent()) {
                throw denied.get();
            }
            throw e;
        }
    }

    /**
     * The denial in {@code failure} or its causes (a service exception with an access-denied code, or
     * a message that a job's failure carried as text), naming {@code fallbackAction} when the message
     * names none; empty when it is no denial.
     */
    static Optional<PermissionDenied> of(Throwable failure, String fallbackAction) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof PermissionDenied denied) {
                return Optional.of(denied);
            }
            if (t instanceof CompletionException) {
                continue;
            }
            String message = String.valueOf(t.getMessage());
            boolean denied = t instanceof AwsServiceException aws
                    ? isDenial(
                            aws.awsErrorDetails() == null
                                    ? null
                                    : aws.awsErrorDetails().errorCode())
                    : message.contains("AccessDenied");
            if (denied) {
                Matcher named = ACTION.matcher(message);
                return Optional.of(new PermissionDenied(named.find() ? named.group(1) : fallbackAction, t));
            }
        }
        return Optional.empty();
    }

    private static boolean isDenial(String code) {
        return code != null && (code.equals("AccessDeniedException") || code.equals("AccessDenied"));
    }
}
