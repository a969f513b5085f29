package io.periodtables.sink;

import java.util.TreeMap;

/**
 * The {@linkplain TableWriteEntry.Origin#mark() marks} of the entries one part of a writer holds
 * (the delay queue, the versions waiting behind a key in flight), counted by mark so that the
 * smallest is at hand. {@link AcknowledgedWatermark} asks for it at every answered request: walking
 * the entries instead cost more than writing them while a missing or throttled table kept
 * thousands waiting (issue 58). Entries share few marks (the watermarks they were made at), so it
 * stays small. Mailbox thread only.
 */
final class HeldMarks {
    private final TreeMap<Long, Integer> counts = new TreeMap<>();

    void add(TableWriteEntry entry) {
        counts.merge(entry.origin().mark(), 1, Integer::sum);
    }

    /** {@code entry}, which {@link #add} counted, is no longer held. */
    void remove(TableWriteEntry entry) {
        counts.computeIfPresent(entry.origin().mark(), (mark, n) -> n == 1 ? null : n - 1);
    }

    /** The smallest mark held; {@link Long#MAX_VALUE} when nothing is. */
    long smallest() {
        return counts.isEmpty() ? Long.MAX_VALUE : counts.firstKey();
    }
}
