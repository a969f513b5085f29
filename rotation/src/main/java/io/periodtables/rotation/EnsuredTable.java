package io.periodtables.rotation;

import org.apache.flink.annotation.PublicEvolving;

/**
 * A table that is ACTIVE with the expected key schema (and TTL on when configured).
 *
 * @param created true when this ensure created it, false when it was already there
 * @param info the table as DescribeTable saw it once it was ACTIVE
 */
@PublicEvolving
public record EnsuredTable(String name, boolean created, TableInfo info) {}
