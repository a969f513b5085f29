package io.periodtables.sink;

import java.util.ArrayList;
import java.util.List;

/**
 * What became of one batch after its {@code BatchWriteItem} call(s), bisections and missing-table
 * fallbacks: entries to retry (their failed-attempt count already raised), new entries to write
 * (rejections of poison items), the last error seen, or a fatal error that stops the job.
 */
final class BatchOutcome {

    static final BatchOutcome DONE = new BatchOutcome(List.of(), List.of(), null, null);

    final List<TableWriteEntry> retry;
    final List<TableWriteEntry> added;
    final String lastError;
    final PeriodTableSinkException fatal;

    private BatchOutcome(
            List<TableWriteEntry> retry,
            List<TableWriteEntry> added,
            String lastError,
            PeriodTableSinkException fatal) {
        this.retry = retry;
        this.added = added;
        this.lastError = lastError;
        this.fatal = fatal;
    }

    /** Every entry failed once with {@code error} and goes back to the buffer. */
    static BatchOutcome retry(List<TableWriteEntry> entries, String error) {
        List<TableWriteEntry> failed = new ArrayList<>(entries.size());
        for (TableWriteEntry entry : entries) {
            failed.add(entry.failedOnce());
        }
        return new BatchOutcome(failed, List.of(), error, null);
    }

    /** A new entry to write in place of a rejected one. */
    static BatchOutcome added(TableWriteEntry entry) {
        return new BatchOutcome(List.of(), List.of(entry), null, null);
    }

    /** New entries to write in place of others (sent to another table). */
    static BatchOutcome added(List<TableWriteEntry> entries) {
        return new BatchOutcome(List.of(), List.copyOf(entries), null, null);
    }

    static BatchOutcome fatal(PeriodTableSinkException error) {
        return new BatchOutcome(List.of(), List.of(), null, error);
    }

    /** Both outcomes together; a fatal error in either wins. */
    BatchOutcome and(BatchOutcome other) {
        if (fatal != null || other == DONE) {
            return this;
        }
        if (other.fatal != null || this == DONE) {
            return other;
        }
        List<TableWriteEntry> allRetry = new ArrayList<>(retry);
        allRetry.addAll(other.retry);
        List<TableWriteEntry> allAdded = new ArrayList<>(added);
        allAdded.addAll(other.added);
        return new BatchOutcome(allRetry, allAdded, other.lastError != null ? other.lastError : lastError, null);
    }

    boolean isDone() {
        return fatal == null && retry.isEmpty() && added.isEmpty();
    }

    /** The highest failed-attempt count among the entries to retry (0 when none). */
    int maxFailedAttempts() {
        int max = 0;
        for (TableWriteEntry entry : retry) {
            max = Math.max(max, entry.failedAttempts());
        }
        return max;
    }
}
