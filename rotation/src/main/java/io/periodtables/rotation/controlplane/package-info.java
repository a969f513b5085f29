/**
 * DynamoDB's control plane: TableManager's idempotent create, update, tag, TTL and delete with
 * their retries (RetryLoop), the requests it sends (TableRequests), and Application Auto Scaling
 * registration (AutoScaling).
 */
package io.periodtables.rotation.controlplane;
