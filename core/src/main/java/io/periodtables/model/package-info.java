/**
 * The records that travel between operators (Reading, Rejection, SinkRecord) with their explicit
 * versioned serializers. The package keeps its name: its serializer snapshots' class names are
 * written into savepoints.
 */
package io.periodtables.model;
