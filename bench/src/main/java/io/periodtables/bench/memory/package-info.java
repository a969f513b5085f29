/**
 * Benchmark 5 (MemoryBench): heap and per-operator state of a large fleet on the instant backend.
 * One reading per device per event-minute.
 */
package io.periodtables.bench.memory;
