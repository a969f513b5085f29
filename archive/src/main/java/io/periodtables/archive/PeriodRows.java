package io.periodtables.archive;

import org.apache.flink.annotation.Internal;

/**
 * How many rows one writer subtask sent to a period's folder, sent to the marker operator once
 * the subtask's watermark has passed the period's end plus the allowed lateness.
 *
 * @param periodStartMillis the period's start
 * @param rows rows sent to {@code period=<label>/} by the subtask
 */
@Internal
public record PeriodRows(long periodStartMillis, long rows) {}
