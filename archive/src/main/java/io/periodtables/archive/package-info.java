/**
 * The archive of stored readings: every item the job writes to a period or late table also
 * lands as a Parquet row under {@code archive.path}, in Hive-style partitions
 * ({@code period=<label>/}, {@code late=<yyyy-MM>/}), committed exactly once on checkpoints by
 * Flink's {@code FileSink}; a period's {@code _SUCCESS} marker says that its partition is complete.
 */
package io.periodtables.archive;
