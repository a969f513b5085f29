/**
 * The recovery bench (RecoveryBench): the time from a failure to writing again, restored from the
 * last checkpoint.
 */
package io.periodtables.bench.recovery;
