/**
 * The rotation's feed: the sparse side stream of event time (RotationTicks), the write load per
 * table and second (WriteLoadCounter, RollupLoadCounter) and the rotation's hook-up (RotationWiring).
 */
package io.periodtables.job.rotation;
