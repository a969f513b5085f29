/**
 * The table rotation's one entry point, Rotation: attaches the operator to a job, hands out the
 * table owner the sinks ask, prebuilds the first tables of a local run.
 */
package io.periodtables.rotation;
