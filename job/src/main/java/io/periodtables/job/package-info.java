/**
 * The production job: main (PeriodTablesJob) and the topology (PeriodTablesTopology), wiring the
 * rooms input, kinesis, time, rollups, rotation and archive, and its own steps around the source
 * (InputSource, RedeployCheck, SplitRejected). Builds the shaded MSF jar.
 */
package io.periodtables.job;
