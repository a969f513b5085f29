/**
 * Benchmark 4 (ItemSizeBench): the DynamoDB-counted size of a reading's item, attribute by
 * attribute, against the 200-byte target.
 */
package io.periodtables.bench.size;
