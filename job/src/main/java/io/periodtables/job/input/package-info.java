/**
 * Input: one Kinesis record (or generated one) becomes readings or rejections with reason codes
 * (ReadingParser, the rules of one reading in ReadingRules), with canonical payloads
 * (CanonicalPayload) and DynamoDB's number and timestamp rules; the synthetic fleet (FleetGenerator).
 */
package io.periodtables.job.input;
