package io.periodtables.rotation.lifecycle;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Write units routed to one period or rollups table within one second of event time, as counted
 * by one upstream subtask: the rotation adds the partial counts of all subtasks per table and
 * second, and remembers each table's peak, from which the next table is sized. Event time, not
 * the wall clock: it measures the load as the fleet produces it, which a backfill or a replay
 * (event time far faster than the wall clock) does not change.
 *
 * @param table the table's name
 * @param second whole seconds of event time since the epoch
 * @param writeUnits DynamoDB write capacity units of the items (one per started KB of each item)
 */
@PublicEvolving
public record TableLoad(String table, long second, long writeUnits) {}
