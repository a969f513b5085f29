package io.periodtables.query;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What a query asks for is not kept in DynamoDB: no rollups table for the range, no rollups of the
 * asked grain (the message names the grains found), or no latest table. Not a failure of
 * DynamoDB: asking again gives the same answer, so the command line exits with status 2, as for a
 * bad option or configuration.
 */
@PublicEvolving
public final class NotStoredException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public NotStoredException(String message) {
        super(message);
    }
}
