/**
 * The capacity planner (CapacityPlanner) and the cost of tables (TableCost) at today's prices
 * (Prices): from a fleet's rates and a sample reading to each table's capacity, the bill, and
 * sized tables against on-demand.
 */
package io.periodtables.query.plan;
