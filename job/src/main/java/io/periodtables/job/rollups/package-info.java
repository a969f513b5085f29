/**
 * Rollups: per device and bucket aggregates (RollupBuckets, RollupAggregate), the duplicate check
 * (RecentSortKeys), the bucket keys (BucketKeys) and the upgrade of an earlier release's state (RollupStateUpgrade).
 */
package io.periodtables.job.rollups;
