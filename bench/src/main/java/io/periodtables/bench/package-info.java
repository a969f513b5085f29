/**
 * The benchmarks behind ./bench/run (BenchMain): contenders measured against each other in
 * interleaved rounds, results written to bench/RESULTS.md. Not part of the test suite.
 */
package io.periodtables.bench;
