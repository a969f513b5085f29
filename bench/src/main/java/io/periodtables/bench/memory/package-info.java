/**
 * The memory bench (MemoryBench): the job's heap and state for a large fleet of devices on
 * the instant backend.
 */
package io.periodtables.bench.memory;
