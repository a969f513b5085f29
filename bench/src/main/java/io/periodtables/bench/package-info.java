/**
 * The machinery the benchmarks share: the cluster, configs, contenders, backends (InstantDynamoDb),
 * statistics and progress lines (BenchLog). Each benchmark has a room of its own, which uses this
 * package and which this package never uses; ./bench/run's entrance is {@code bench.run}.
 */
package io.periodtables.bench;
