/**
 * The hot-device bench (HotDeviceBench): one device far above the fleet (HotFleet), what it
 * costs the job and its tables (HotDeviceReport).
 */
package io.periodtables.bench.hotdevice;
