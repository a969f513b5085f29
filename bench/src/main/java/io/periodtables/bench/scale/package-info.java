/**
 * Benchmark 14 (ScaleBench): a dense day and a sparse week on RocksDB with incremental checkpoints,
 * their sizes and durations (ScaleSample) charted (ScaleChart) and reported (ScaleReport).
 */
package io.periodtables.bench.scale;
