/**
 * Capacity: a tier's units or on-demand (Capacity), the tiers of a table's life (CapacityTier)
 * and the rule that sizes a new period table from a peak (CapacitySizing), shared by the rotation
 * and the planner.
 */
package io.periodtables.core.capacity;
