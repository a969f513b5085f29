/**
 * The end-to-end bench (E2eBench, RESULTS.md section 1): the full job against the stock sink and
 * our sink alone on dynalite, in interleaved rounds; its log line is the other benches' too.
 */
package io.periodtables.bench.e2e;
