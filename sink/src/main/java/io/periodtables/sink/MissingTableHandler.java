package io.periodtables.sink;

import io.periodtables.conf.PeriodTablesConfig;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.concurrent.CompletableFuture;

/**
 * What the sink does when DynamoDB says a table it writes to does not exist: the job plugs in
 * the rotation's table manager, which reads the name back with {@code TableNaming.parse},
 * creates the table and completes the future once it is active. The sink then retries the
 * entries for that table; it never drops them.
 *
 * <p>{@link #ensureTable} is called from SDK response threads, possibly concurrently and many
 * times for one table: it must not block, and should share one creation per table.
 */
@PublicEvolving
public interface MissingTableHandler extends AutoCloseable {

    /** Completes when {@code tableName} exists and takes writes; fails when it cannot. */
    CompletableFuture<Void> ensureTable(String tableName);

    /** Releases the handler's clients; called when the sink's writer closes. */
    @Override
    default void close() throws Exception {}

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
            return config -> tableName -> CompletableFuture.failedFuture(new IllegalStateException(
                    "table " + tableName + " does not exist and this sink has no missing-table handler that creates it"));
        }
    }
}
