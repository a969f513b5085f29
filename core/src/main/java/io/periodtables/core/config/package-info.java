/**
 * Configuration: every key with its default and meaning (ConfigKeys, the tables' own in TableKeys),
 * loading with precedence defaults < file < MSF runtime properties < command line (ConfigLoader),
 * value rules and the rules between keys (ConfigRules) that name the key on failure, the typed
 * PeriodTablesConfig, and the start-up quota check (TableBudget).
 */
package io.periodtables.core.config;
