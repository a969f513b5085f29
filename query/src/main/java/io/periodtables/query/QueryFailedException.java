package io.periodtables.query;

import org.apache.flink.annotation.PublicEvolving;

/**
 * A query that could not be answered: DynamoDB refused a request (no permission, a bad
 * endpoint) or kept failing after the configured attempts. The message names the table.
 */
@PublicEvolving
public final class QueryFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public QueryFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
