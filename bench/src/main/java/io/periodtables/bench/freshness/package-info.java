/**
 * The freshness bench (FreshnessBench): a reading's way from Kinesis to its table at given rates,
 * fed (FreshnessFeeder), probed (FreshnessProbe) and broken down by step (DelayBreakdown).
 */
package io.periodtables.bench.freshness;
