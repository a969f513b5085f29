/**
 * Benchmark 2 (CapacityBench): the pipeline's own capacity against the instant backend, in readings
 * per core-second, with its runs (CapacityRun) and its section (CapacityReport).
 */
package io.periodtables.bench.capacity;
