/**
 * Reading back, as a library: a device's readings over a range across period tables, shards and
 * late tables, and the archive for deleted ones (ReadingsQuery), in time order; the latest
 * reading; rollup buckets. Results say what was read and what was missing (QueryReport).
 */
package io.periodtables.query;
