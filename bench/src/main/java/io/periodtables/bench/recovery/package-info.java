/**
 * Benchmark 6 (RecoveryBench): stop with a savepoint, submit again from it; the stop, the time to
 * RUNNING and to the first write.
 */
package io.periodtables.bench.recovery;
