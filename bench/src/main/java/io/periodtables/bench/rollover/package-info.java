/**
 * Benchmark 3 (RolloverBench): throughput around hourly rollovers under load, the sink's counters
 * sampled (Sampler) and charted.
 */
package io.periodtables.bench.rollover;
