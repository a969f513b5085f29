package io.periodtables.sink;

import io.periodtables.model.Rejection;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Where entries go that cannot be written to their own table: a reading whose table's period has
 * closed to this month's late table, anything else the sink cannot store to the rejected table.
 *
 * @param toLate the same reading for this month's late table
 * @param rejections the entry of a rejection for the rejected table
 * @param rejectedTable the rejected table's name (a refusal there stops the job: nowhere is left)
 */
record Reroutes(
        UnaryOperator<TableWriteEntry> toLate, Function<Rejection, TableWriteEntry> rejections, String rejectedTable) {}
