package io.periodtables.rotation.lifecycle;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Write units routed to one period or rollups table within one second, as counted by one
 * upstream subtask: the rotation adds the partial counts of all subtasks per table and second,
 * and remembers each table's peak, from which the next table is sized. A second of event time
 * measures the load as the data describes it; a second of the wall clock as the sink has to
 * write it, which a replay or backfill (event time far faster than the wall clock) makes the
 * larger one.
 *
 * @param table the table's name
 * @param second whole seconds since the epoch, of event time or, with {@code wallClock}, of the
 *     wall clock when the counter saw the items
 * @param writeUnits DynamoDB write capacity units of the items (one per started KB of each item)
 * @param wallClock whether {@code second} is a second of the wall clock
 */
@PublicEvolving
public record TableLoad(String table, long second, long writeUnits, boolean wallClock) {

    /** A load per second of event time. */
    public TableLoad(String table, long second, long writeUnits) {
        this(table, second, writeUnits, false);
    }
}
