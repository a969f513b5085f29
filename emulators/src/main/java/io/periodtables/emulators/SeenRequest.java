package io.periodtables.emulators;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One API call seen by {@link DynamoDbFaults}: when it was sent, which operation, the tables it
 * names, the fault injected into it, if any, whether DynamoDB itself throttled it (writes held
 * back as UnprocessedItems, or ProvisionedThroughputExceededException), and its outcome: {@value
 * #OK}, the error DynamoDB (or an injected fault) answered as {@code <code>: <message>}, or {@code
 * no answer: …} when the client got none (a timeout, or the client closed with the call in flight,
 * as at the end of a job: such a call may or may not have taken effect).
 */
public record SeenRequest(
        Instant at,
        String operation,
        List<String> tables,
        Optional<FaultKind> fault,
        boolean throttled,
        String outcome) {
    /** The outcome of a call DynamoDB answered with success. */
    public static final String OK = "OK";

    static final String NO_ANSWER = "no answer: ";

    public SeenRequest {
        tables = List.copyOf(tables);
    }

    /** True when DynamoDB answered the call with success. */
    public boolean accepted() {
        return OK.equals(outcome);
    }

    /** True when the client got no answer: the call may or may not have taken effect. */
    public boolean unanswered() {
        return outcome.startsWith(NO_ANSWER);
    }

    SeenRequest throttledByDynamoDb() {
        return new SeenRequest(at, operation, tables, fault, true, outcome);
    }

    SeenRequest answered(String answer) {
        return new SeenRequest(at, operation, tables, fault, throttled, answer);
    }

    @Override
    public String toString() {
        return at + " " + operation + " " + tables
                + fault.map(f -> " (fault " + f + ")").orElse("") + (throttled ? " (throttled)" : "") + " -> "
                + outcome;
    }
}
