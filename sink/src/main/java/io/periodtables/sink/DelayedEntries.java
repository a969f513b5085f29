package io.periodtables.sink;

import io.periodtables.core.dynamodb.Backoff;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.connector.base.sink.writer.RequestEntryWrapper;

/**
 * The writer's delay queue: entries that wait to be sent again, per table, and each table's rate
 * control. An entry waits here, not in a request in flight, so a throttled table holds none of
 * the writer's request slots while it backs off; the queue is part of the writer's snapshot.
 *
 * <p>Per table: a table whose request was throttled or failed is <em>cooling</em>: its readyAt
 * lies {@link Backoff} after the failure (counted per table, so the backoff grows while the
 * table keeps failing, whatever entries it sends), it takes one request at a time (a probe), and
 * the writer sends its new entries here too instead of into mixed batches. Its first successful
 * request ends the cooling; a healthy table with waiting entries (released behind a key that was
 * in flight, rejections, late reroutes) sends them at once, with any number of requests. So one
 * table throttled for minutes slows no other table.
 *
 * <p>One entry per table and key: a newer version of a waiting key replaces it in place (it
 * would overwrite it anyway), so the queue never holds two versions whose order could flip.
 * Mailbox thread only; the failure counts and readiness are not part of the snapshot.
 */
final class DelayedEntries {

    private final Backoff backoff;
    private final Map<String, Table> tables = new HashMap<>();
    private final HeldMarks marks = new HeldMarks();
    private int size;

    private static final class Table {
        final LinkedHashMap<TableWriteEntry.EntryKey, TableWriteEntry> waiting = new LinkedHashMap<>();
        long readyAt;
        int failures;
        int sending;
    }

    DelayedEntries(Backoff backoff) {
        this.backoff = backoff;
    }

    /** Entries waiting, all tables. */
    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** True while {@code table} backs off after a failure: its new entries wait here too. */
    boolean cooling(String table) {
        Table t = tables.get(table);
        return t != null && t.failures > 0;
    }

    /**
     * Takes the place of a waiting older version of the entry's key, if there is one.
     *
     * @return false when no version of the key waits (nothing changed)
     */
    boolean supersede(TableWriteEntry entry) {
        Table t = tables.get(entry.table());
        if (t == null || !t.waiting.containsKey(entry.key())) {
            return false;
        }
        marks.remove(t.waiting.put(entry.key(), entry));
        marks.add(entry);
        return true;
    }

    /** Queues an entry without changing its table's readiness (a new entry, a reroute, a released one). */
    void add(TableWriteEntry entry) {
        Table t = tables.computeIfAbsent(entry.table(), name -> new Table());
        TableWriteEntry replaced = t.waiting.put(entry.key(), entry);
        if (replaced == null) {
            size++;
        } else {
            marks.remove(replaced);
        }
        marks.add(entry);
    }

    /** Queues entries of {@code table} whose request failed at {@code now}: the table cools down. */
    void failed(String table, List<TableWriteEntry> entries, long now) {
        Table t = tables.computeIfAbsent(table, name -> new Table());
        t.failures++;
        t.readyAt = Math.max(t.readyAt, now + backoff.delayMillis(t.failures));
        entries.forEach(this::add);
    }

    /** A request for {@code table} went through: it is no longer cooling. */
    void succeeded(String table) {
        Table t = tables.get(table);
        if (t != null) {
            t.failures = 0;
            t.readyAt = 0;
        }
    }

    /**
     * Takes the next batch to send at {@code now}: up to {@code maxEntries} waiting entries of one
     * table that is ready and may send (a cooling table one request at a time), or null.
     */
    Batch next(long now, int maxEntries) {
        for (Map.Entry<String, Table> candidate : tables.entrySet()) {
            Table t = candidate.getValue();
            if (t.waiting.isEmpty() || t.readyAt > now || (t.failures > 0 && t.sending > 0)) {
                continue;
            }
            List<TableWriteEntry> batch = new ArrayList<>(Math.min(maxEntries, t.waiting.size()));
            Iterator<TableWriteEntry> oldest = t.waiting.values().iterator();
            while (oldest.hasNext() && batch.size() < maxEntries) {
                TableWriteEntry entry = oldest.next();
                oldest.remove();
                marks.remove(entry);
                batch.add(entry);
            }
            size -= batch.size();
            t.sending++;
            return new Batch(candidate.getKey(), batch);
        }
        return null;
    }

    /** A batch taken with {@link #next} was answered; call after {@link #failed} or {@link #succeeded}. */
    void answered(String table) {
        Table t = tables.get(table);
        t.sending--;
        if (t.sending == 0 && t.failures == 0 && t.waiting.isEmpty()) {
            tables.remove(table);
        }
    }

    /** When the next waiting entry may be sent: now or later, or {@link Long#MAX_VALUE} when none waits. */
    long nextReadyAt() {
        long next = Long.MAX_VALUE;
        for (Table t : tables.values()) {
            if (!t.waiting.isEmpty()) {
                next = Math.min(next, t.readyAt);
            }
        }
        return next;
    }

    /**
     * The smallest {@linkplain TableWriteEntry.Origin#mark() mark} of the waiting entries; {@link Long#MAX_VALUE} when
     * none waits.
     */
    long smallestMark() {
        return marks.smallest();
    }

    /** Every waiting entry, for the writer's snapshot. */
    List<RequestEntryWrapper<TableWriteEntry>> snapshot() {
        List<RequestEntryWrapper<TableWriteEntry>> entries = new ArrayList<>(size);
        for (Table t : tables.values()) {
            t.waiting.values().forEach(e -> entries.add(new RequestEntryWrapper<>(e, e.sizeBytes())));
        }
        return entries;
    }

    /** Waiting entries of one table, taken together. */
    record Batch(String table, List<TableWriteEntry> entries) {}
}
