/**
 * The rollover bench (RolloverBench): the writes across a period's rollover, sampled
 * (Sampler) and charted.
 */
package io.periodtables.bench.rollover;
