/**
 * The period-routing DynamoDB sink. {@link io.periodtables.sink.PeriodTableSink} consumes
 * {@link io.periodtables.model.SinkRecord}s (a {@link io.periodtables.model.Reading} for its period
 * table or the late table, or a {@link io.periodtables.model.Rejection} for the rejected table),
 * builds the items of DESIGN.md with the core's item rules ({@code io.periodtables.core.item}), and writes
 * them with multi-table {@code BatchWriteItem} calls, at least once through checkpoints. The job
 * supplies a {@link io.periodtables.core.owner.MissingTableHandler} that creates tables DynamoDB
 * reports missing.
 */
package io.periodtables.sink;
