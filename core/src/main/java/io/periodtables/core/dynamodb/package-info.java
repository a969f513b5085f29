/**
 * DynamoDB access shared by every module: the client built from configuration (DynamoDbClients),
 * the one classifier of failed calls (DynamoDbFailure), the one backoff policy (Backoff), and the
 * bookkeeping tables (WritersTable, LatestTable, BookkeepingTables).
 */
package io.periodtables.core.dynamodb;
