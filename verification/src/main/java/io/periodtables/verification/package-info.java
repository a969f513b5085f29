/**
 * {@code ./verify}: the job's contract checked on the caller's own Kinesis and DynamoDB (or the
 * emulators), one PASS/FAIL line a check, everything the run created deleted. Tooling beside the job.
 */
package io.periodtables.verification;
