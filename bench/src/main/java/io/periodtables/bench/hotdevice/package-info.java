/**
 * Benchmark 20 (HotDeviceBench): one device at 1,000 readings a second among quiet ones (HotFleet),
 * what it costs the rollups and the job (HotDeviceReport).
 */
package io.periodtables.bench.hotdevice;
