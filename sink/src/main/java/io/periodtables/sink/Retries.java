package io.periodtables.sink;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the writer does with DynamoDB's answer to a batch it sent ({@link BatchOutcome}): it
 * releases the batch's keys in {@link KeysInFlight} (a newer version that waited behind a key
 * takes the place of the entry to retry, or is queued), queues the entries to retry in the {@link
 * DelayedEntries delay queue} grouped by table, so only a table that failed cools and backs off
 * while a table that did not is told its request went through, and queues the late and rejected
 * entries the batch produced instead. The job stops rather than drop an entry: one that failed
 * {@code sink.max-attempts} times fails it. Mailbox thread only.
 */
final class Retries {
    private static final Logger LOG = LoggerFactory.getLogger(Retries.class);

    private final KeysInFlight keys;
    private final DelayedEntries delayed;
    private final int maxAttempts;

    Retries(KeysInFlight keys, DelayedEntries delayed, int maxAttempts) {
        this.keys = keys;
        this.delayed = delayed;
        this.maxAttempts = maxAttempts;
    }

    /** The failure for an entry of {@code outcome} that has used up its attempts, or null. */
    PeriodTableSinkException exhausted(BatchOutcome outcome) {
        for (TableWriteEntry entry : outcome.retry) {
            if (entry.failedAttempts() >= maxAttempts) {
                return new PeriodTableSinkException("the item pk=" + entry.pk() + ", sk=" + entry.sk() + " for table "
                        + entry.table() + " failed " + entry.failedAttempts() + " attempts (sink.max-attempts="
                        + maxAttempts + "); the job stops instead of dropping it. Last error: " + outcome.lastError);
            }
        }
        return null;
    }

    /** Releases the keys of a sent batch and queues what is to be retried or written instead. */
    void file(List<TableWriteEntry> sent, BatchOutcome outcome) {
        long now = System.currentTimeMillis();
        Set<TableWriteEntry.EntryKey> retried = new HashSet<>();
        Map<String, List<TableWriteEntry>> failed = new HashMap<>();
        for (TableWriteEntry entry : outcome.retry) {
            retried.add(entry.key());
            TableWriteEntry newer = keys.release(entry);
            failed.computeIfAbsent(entry.table(), t -> new ArrayList<>()).add(newer != null ? newer : entry);
        }
        failed.forEach((table, entries) -> delayed.failed(table, entries, now));
        for (TableWriteEntry entry : sent) {
            if (!retried.contains(entry.key())) {
                TableWriteEntry newer = keys.release(entry);
                if (newer != null) {
                    delayed.add(newer);
                }
                if (!failed.containsKey(entry.table())) {
                    delayed.succeeded(entry.table());
                }
            }
        }
        outcome.added.forEach(delayed::add);
        if (!outcome.retry.isEmpty()) {
            LOG.debug("{} entries wait to be retried: {}", outcome.retry.size(), outcome.lastError);
        }
    }
}
