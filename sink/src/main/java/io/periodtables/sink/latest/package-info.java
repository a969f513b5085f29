/**
 * The latest table's sink (LatestSink): each device's newest stored reading, written as a put
 * conditional on its sort key growing, so that a replay or a shard behind the others never moves
 * a device back.
 */
package io.periodtables.sink.latest;
