/**
 * The query bench (QueryBench): reading back ranges, the latest table and rollups over data it
 * writes first (QueryData), counting the requests (RequestCounter).
 */
package io.periodtables.bench.query;
