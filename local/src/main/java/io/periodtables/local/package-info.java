/**
 * The local run, {@code ./run-local}: the production topology on a MiniCluster with dynalite,
 * kinesalite and the synthetic fleet ({@link io.periodtables.local.LocalRunner}), its status line
 * and summary. Depends on {@code job}, {@code emulators} and {@code query}; the MSF jar holds none of it.
 */
package io.periodtables.local;
