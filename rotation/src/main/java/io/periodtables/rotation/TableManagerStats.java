package io.periodtables.rotation;

import org.apache.flink.annotation.PublicEvolving;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of what one {@link TableManager} did since it was built; thread-safe, monotonic.
 * The job reads {@link #tablesCreated()} of the manager behind the sink's "missing table"
 * hook to tell how often the sink had to create a table itself.
 */
@PublicEvolving
public final class TableManagerStats {
    final AtomicLong tablesCreated = new AtomicLong();
    final AtomicLong tablesFoundExisting = new AtomicLong();
    final AtomicLong tierChanges = new AtomicLong();
    final AtomicLong updateTableCalls = new AtomicLong();
    final AtomicLong retentionDeletions = new AtomicLong();
    final AtomicLong deletionProtectedSkips = new AtomicLong();
    final AtomicLong retries = new AtomicLong();
    final AtomicLong failures = new AtomicLong();

    /** Tables this manager created (CreateTable succeeded). */
    public long tablesCreated() {
        return tablesCreated.get();
    }

    /** Ensures that found the table already there. */
    public long tablesFoundExisting() {
        return tablesFoundExisting.get();
    }

    /** Capacity or billing-mode changes that DynamoDB accepted. */
    public long tierChanges() {
        return tierChanges.get();
    }

    /** UpdateTable calls sent, accepted or not. */
    public long updateTableCalls() {
        return updateTableCalls.get();
    }

    public long retentionDeletions() {
        return retentionDeletions.get();
    }

    /** Expired tables that retention left alone because deletion protection is on. */
    public long deletionProtectedSkips() {
        return deletionProtectedSkips.get();
    }

    /** Attempts repeated after a transient error, a quota or a table that was not ready. */
    public long retries() {
        return retries.get();
    }

    /** Operations that failed for good. */
    public long failures() {
        return failures.get();
    }

    @Override
    public String toString() {
        return "created=" + tablesCreated + " existing=" + tablesFoundExisting + " tierChanges=" + tierChanges
                + " updateTableCalls=" + updateTableCalls + " deleted=" + retentionDeletions
                + " protectedSkips=" + deletionProtectedSkips + " retries=" + retries + " failures=" + failures;
    }
}
