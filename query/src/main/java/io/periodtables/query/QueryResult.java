package io.periodtables.query;

import java.util.List;
import org.apache.flink.annotation.PublicEvolving;

/** Readings in the order a query returns them, with the report of what it read. */
@PublicEvolving
public record QueryResult(List<StoredReading> readings, QueryReport report) {
    public QueryResult {
        readings = List.copyOf(readings);
    }
}
