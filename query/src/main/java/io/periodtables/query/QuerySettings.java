package io.periodtables.query;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.Preconditions;

/**
 * How a {@link ReadingsQuery} talks to DynamoDB.
 *
 * @param tablesInFlight tables read at the same time (each with all its shards in parallel):
 *     the read-ahead of {@code range} and {@code latest}
 * @param pageSize {@code Limit} of one {@code Query} request of {@code range}, or 0 for
 *     DynamoDB's own page size (up to 1 MB)
 * @param maxAttempts attempts of one request when DynamoDB throttles it or fails with a 5xx or
 *     an I/O error
 */
@PublicEvolving
public record QuerySettings(int tablesInFlight, int pageSize, int maxAttempts) {

    public QuerySettings {
        Preconditions.checkArgument(tablesInFlight >= 1, "tablesInFlight must be >= 1, was %s", tablesInFlight);
        Preconditions.checkArgument(pageSize >= 0, "pageSize must be >= 0 (0: DynamoDB's page size), was %s", pageSize);
        Preconditions.checkArgument(maxAttempts >= 1, "maxAttempts must be >= 1, was %s", maxAttempts);
    }

    /** Four tables in flight, DynamoDB's page size, six attempts. */
    public static QuerySettings defaults() {
        return new QuerySettings(4, 0, 6);
    }

    public QuerySettings withPageSize(int pageSize) {
        return new QuerySettings(tablesInFlight, pageSize, maxAttempts);
    }

    public QuerySettings withTablesInFlight(int tablesInFlight) {
        return new QuerySettings(tablesInFlight, pageSize, maxAttempts);
    }
}
