/**
 * The production job: main (PeriodTablesJob), the topology (PeriodTablesTopology) wiring input,
 * event time, windows, sinks, rollups (RollupBuckets) and rotation, and the archive's hook-up.
 * Builds the shaded MSF jar.
 */
package io.periodtables.job;
