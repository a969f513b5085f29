/**
 * The entrance behind ./bench/run (BenchMain): reads the arguments, runs the benchmarks named, each
 * from its room, and writes their sections into bench/RESULTS.md (ResultsFile).
 */
package io.periodtables.bench.run;
