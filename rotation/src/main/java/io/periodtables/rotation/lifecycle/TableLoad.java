package io.periodtables.rotation.lifecycle;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Write units routed to one period table within one second of event time, as counted by one
 * upstream subtask: the rotation adds the partial counts of all subtasks per table and second,
 * and remembers each table's peak, from which the next table is sized.
 *
 * @param table the period table's name
 * @param second event time in whole seconds since the epoch
 * @param writeUnits DynamoDB write capacity units of the items (one per started KB of each item)
 */
@PublicEvolving
public record TableLoad(String table, long second, long writeUnits) {}
