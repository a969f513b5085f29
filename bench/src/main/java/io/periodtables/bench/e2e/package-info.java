/**
 * Benchmark 1 (E2eBench): end-to-end throughput into dynalite, the contenders run interleaved per
 * round; its log line is the other benches' too.
 */
package io.periodtables.bench.e2e;
