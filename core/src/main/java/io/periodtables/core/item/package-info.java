/**
 * The stored items, by DESIGN.md: write-sharded keys (WriteSharding), payload attributes
 * (ItemAttributes), DynamoDB's item size (DynamoDbItemSize), a reading's and a rejection's item
 * (ItemBuilder, ReadingItems), rollup items (Rollups) and the archive's typed columns
 * (ArchiveColumn).
 */
package io.periodtables.core.item;
