/**
 * The life-cycle policy, pure: what tier a period's table should have at a watermark (Lifecycle),
 * the next action for one table (TablePlan), how far lowering may go (LoweringBound) and
 * DynamoDB's decrease quota (DecreaseQuota). No calls, no Flink.
 */
package io.periodtables.rotation.lifecycle;
