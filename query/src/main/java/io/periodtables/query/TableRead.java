package io.periodtables.query;

import java.util.List;
import java.util.Optional;

/**
 * The readings of one device found in one table, in the order asked for (by {@code sk}), or the
 * fact that the table does not exist; the number of {@code Query} requests it took and a note
 * for the report (for example where the shard count came from).
 */
record TableRead(String table, boolean exists, List<StoredReading> readings, int requests, Optional<String> note) {

    static TableRead missing(String table, int requests) {
        return new TableRead(table, false, List.of(), requests, Optional.empty());
    }
}
