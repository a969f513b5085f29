/**
 * The query bench (QueryBench): latency of reading back with ReadingsQuery against dynalite, over
 * data it writes first (QueryData), counting the requests (RequestCounter).
 */
package io.periodtables.bench.query;
