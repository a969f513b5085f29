package io.periodtables.sink;

import java.util.HashMap;
import java.util.Map;

/**
 * Per-key ordering of the writer: at most one request in flight writes a given table and key.
 * Two versions of one item (the same {@code eventId} sent twice) in two requests in flight, or a
 * retried older version sent after a newer one, could reach DynamoDB in either order and leave
 * the older one stored. So a version whose key is in flight waits behind it, and only the newest
 * waits: when the request answers, the waiting version replaces whatever became of the older one
 * (written, or to be retried). {@code BatchWriteItem} has no condition expressions, so a
 * conditional write would cost one {@code PutItem} per item; this costs a map lookup.
 *
 * <p>Mailbox thread only. Nothing waits here when no request is in flight, so a snapshot taken
 * after the writer's flush misses nothing.
 */
final class KeysInFlight {

    /** Key in flight to the newest version waiting behind it (null: none waits). */
    private final Map<TableWriteEntry.EntryKey, TableWriteEntry> inFlight = new HashMap<>();
    /** The marks of the versions waiting. */
    private final HeldMarks marks = new HeldMarks();

    /**
     * Marks the entry's key in flight and returns true; or, when its key already is, keeps the
     * entry as the version to write next and returns false.
     */
    boolean claim(TableWriteEntry entry) {
        TableWriteEntry.EntryKey key = entry.key();
        if (!inFlight.containsKey(key)) {
            inFlight.put(key, null);
            return true;
        }
        TableWriteEntry replaced = inFlight.put(key, entry);
        if (replaced != null) {
            marks.remove(replaced);
        }
        marks.add(entry);
        return false;
    }

    /** The request that wrote {@code entry}'s key answered; returns the newer version waiting, or null. */
    TableWriteEntry release(TableWriteEntry entry) {
        TableWriteEntry waiting = inFlight.remove(entry.key());
        if (waiting != null) {
            marks.remove(waiting);
        }
        return waiting;
    }

    /**
     * The smallest {@linkplain TableWriteEntry.Origin#mark() mark} of the versions waiting; {@link Long#MAX_VALUE} when
     * none waits.
     */
    long smallestMark() {
        return marks.smallest();
    }

    /** True while a request in flight writes the entry's key. */
    boolean inFlight(TableWriteEntry entry) {
        return inFlight.containsKey(entry.key());
    }
}
