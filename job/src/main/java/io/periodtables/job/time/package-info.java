/**
 * Event time: per-split watermarks (ReadingWatermarks, SplitEventTime), a reading judged late by
 * its shard (ShardLateness), the period windows (PeriodWindows, SmallBatchTrigger), late routing
 * (RouteLate) and the watermark kept across restores (CheckpointedWatermark).
 */
package io.periodtables.job.time;
