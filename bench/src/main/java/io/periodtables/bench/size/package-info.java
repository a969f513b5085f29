/**
 * The item-size bench (ItemSizeBench): item sizes by DynamoDB's rules for the readings the
 * benches write.
 */
package io.periodtables.bench.size;
