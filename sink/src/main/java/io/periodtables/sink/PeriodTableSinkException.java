package io.periodtables.sink;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Why {@link PeriodTableSink} failed the job: credentials refused, an entry that exhausted
 * {@code sink.max-attempts}, or an item the rejected table itself refused. The message names
 * the table, the item key and what to check.
 */
@PublicEvolving
public class PeriodTableSinkException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PeriodTableSinkException(String message) {
        super(message);
    }

    public PeriodTableSinkException(String message, Throwable cause) {
        super(message, cause);
    }
}
