/**
 * The reconcile loop: the Reconciler compares the tables DynamoDB has with the plan on every
 * pass, runs one operation per table at a time, retires expired tables behind the archive's gate,
 * and keeps the state the operator checkpoints.
 */
package io.periodtables.rotation.reconcile;
