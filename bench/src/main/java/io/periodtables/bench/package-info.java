/**
 * The benchmarks behind ./bench/run (BenchMain), one room each, and the machinery they share: the
 * cluster, configs, contenders, backends (InstantDynamoDb), statistics and the results file.
 */
package io.periodtables.bench;
