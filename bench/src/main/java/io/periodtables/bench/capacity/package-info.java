/**
 * The capacity bench (CapacityBench): readings per core-second of the contenders on the instant
 * backend, with its runs (CapacityRun) and its section (CapacityReport).
 */
package io.periodtables.bench.capacity;
