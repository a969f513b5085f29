/**
 * The table owner the sinks ask, in the sink's task (TableOwner): create a missing table, send
 * readings of a closed or far-ahead period to the late or rejected table, raise a throttled open
 * table.
 */
package io.periodtables.rotation.owner;
