/**
 * The Kinesis source: connector 4.3.0's FLIP-27 source with our paced shard reader, which leaves
 * idle shards alone (PacedKinesisSource, PacedShardSplitReader), configured from our keys
 * (KinesisInput).
 */
package io.periodtables.job.kinesis;
