/**
 * The sink's questions to the table owner (MissingTableHandler): a table DynamoDB reports missing,
 * a table that throttles the sink's writes. The rotation's owner answers them; the sink only asks.
 */
package io.periodtables.core.owner;
