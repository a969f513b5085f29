/**
 * The run-query command line (QueryCli): range, rollup, latest, plan and cost, their options and
 * exit codes.
 */
package io.periodtables.query.cli;
