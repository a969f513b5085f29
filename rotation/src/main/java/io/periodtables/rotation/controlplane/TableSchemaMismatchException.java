package io.periodtables.rotation.controlplane;

import org.apache.flink.annotation.PublicEvolving;

/**
 * A table with the name period-tables wants exists with another key schema than {@code pk}
 * (S, HASH) and {@code sk} (S, RANGE). The job cannot write into it and will not touch it:
 * rename or delete the table, or choose another {@code tables.prefix}. Never retried.
 */
@PublicEvolving
public final class TableSchemaMismatchException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public TableSchemaMismatchException(String table, String found) {
        super("Table '" + table + "' exists with key schema " + found
                + " but period-tables needs pk (S, HASH) and sk (S, RANGE); rename or delete that table,"
                + " or set another tables.prefix");
    }
}
