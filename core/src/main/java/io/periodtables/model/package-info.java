/**
 * The records that travel between operators (Reading, Rejection, SinkRecord) with their explicit
 * versioned serializers, and the sink's question to the table owner (MissingTableHandler). The
 * package keeps its name: its serializer snapshots' class names are written into savepoints.
 */
package io.periodtables.model;
