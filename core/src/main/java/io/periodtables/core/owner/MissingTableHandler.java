package io.periodtables.core.owner;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.RejectReason;
import java.io.Serializable;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.Preconditions;

/**
 * What the sink asks the owner of the tables, who decides: about a table DynamoDB says does not
 * exist, and about a table that throttles the sink's writes. The job plugs in the rotation's
 * table life cycle; the sink never creates a table itself.
 *
 * <p>For a missing table the owner answers with a {@link Verdict}: the table exists now (write
 * the entries again), or the entries go to the late table, or to the rejected table with a
 * reason code. The sink never drops them. Both methods are called from SDK response threads,
 * possibly concurrently and many times for one table: they must not block.
 */
@PublicEvolving
public interface MissingTableHandler extends AutoCloseable {

    /**
     * Decides about {@code tableName}, which DynamoDB reports missing.
     *
     * @param arrival how the readings for that table arrived (the most recent kind among them)
     * @param eventTime the sink's event time when it made the entries for that table, in epoch
     *     milliseconds: its watermark, or before the first watermark the newest reading it had
     *     seen minus {@code watermark.out-of-orderness}; {@link Long#MIN_VALUE} when unknown
     * @return the verdict; a failed future makes the sink try again later
     */
    CompletableFuture<Verdict> ensureTable(String tableName, Arrival arrival, long eventTime);

    /** How the readings for a table reached the sink. */
    @PublicEvolving
    enum Arrival {
        /**
         * Results of the period windows, stamped by Flink with the window's last millisecond: the
         * window still took writes for the period when it emitted them.
         */
        ON_TIME,
        /** Readings for a period table that arrived after its period's grace ({@code late.policy=period-table}). */
        LATE,
        /** Not known: entries restored from a checkpoint, late and rejected tables, or no timestamp. */
        UNKNOWN
    }

    /**
     * DynamoDB throttled the sink's writes to {@code tableName}; the owner may give it capacity
     * back. Completes with true when that raised a closed table (counted as {@code closedTableRaises}).
     */
    default CompletableFuture<Boolean> throttled(String tableName) {
        return CompletableFuture.completedFuture(false);
    }

    /** Releases the handler's clients; called when the sink's writer closes. */
    @Override
    default void close() throws Exception {}

    /**
     * The owner's answer about a missing table.
     *
     * @param reason for {@code REJECTED}: the reason, whose code starts the rejected item's {@code pk}
     * @param message why, in words (logged, and stored with a rejection)
     */
    @PublicEvolving
    record Verdict(Kind kind, RejectReason reason, String message) {

        /** What becomes of the entries for the missing table. */
        @PublicEvolving
        public enum Kind {
            /** The table exists now: the entries are written to it. */
            CREATED,
            /** The table is not created (its period has closed): the readings go to the late table. */
            LATE,
            /** The table is not created: the entries go to the rejected table with {@link #reason()}. */
            REJECTED
        }

        public Verdict {
            Preconditions.checkNotNull(kind, "kind");
            Preconditions.checkArgument(kind != Kind.REJECTED || reason != null, "a rejection needs a reason");
        }

        public static Verdict created() {
            return new Verdict(Kind.CREATED, null, "created");
        }

        public static Verdict late(String message) {
            return new Verdict(Kind.LATE, null, message);
        }

        public static Verdict rejected(RejectReason reason, String message) {
            return new Verdict(Kind.REJECTED, reason, message);
        }
    }

    /** Creates the handler on the task manager, once per sink writer. */
    @PublicEvolving
    @FunctionalInterface
    interface Factory extends Serializable {
        MissingTableHandler create(PeriodTablesConfig config);

        /**
         * A handler that creates nothing and reports the table as missing, so the entries are
         * retried until {@code sink.max-attempts} and the job then fails with the table's name.
         * For tests and for jobs whose tables are created by someone else.
         */
        static Factory failing() {
            return config -> (tableName, arrival, eventTime) ->
                    CompletableFuture.failedFuture(new IllegalStateException("table " + tableName
                            + " does not exist and this sink has no missing-table handler that creates it"));
        }
    }
}
