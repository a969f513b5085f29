package io.periodtables.local;

import io.periodtables.core.config.UserMetrics;
import io.periodtables.core.period.TableNaming;
import io.periodtables.core.period.TableNaming.TableRef;
import java.util.Map;
import java.util.Optional;

/**
 * The local run's counters at one moment, summed over subtasks: readings in (parsed or
 * rejected at the parse), and the items DynamoDB acknowledged in period tables, late tables and
 * the rejected table. Every reading that comes in is written exactly once to one of them, so
 * {@code in == written + late + rejected} once the pipeline has drained; before that the
 * difference is {@link #inFlight()}.
 */
record RunCounts(long in, long written, long late, long rejected, long tablesCreated) {

    static RunCounts now(TableNaming naming) {
        long written = 0;
        long late = 0;
        long rejected = 0;
        for (Map.Entry<String, Long> table :
                LocalStatusReporter.sumPerTable(UserMetrics.RECORDS_WRITTEN).entrySet()) {
            Optional<TableRef> ref = naming.parse(table.getKey());
            if (ref.isEmpty()) {
                continue;
            }
            switch (ref.get().kind()) {
                case PERIOD -> written += table.getValue();
                case LATE -> late += table.getValue();
                case REJECTED -> rejected += table.getValue();
                case ROLLUPS -> {} // buckets, not readings
            }
        }
        return new RunCounts(
                LocalStatusReporter.sum(UserMetrics.READINGS_IN)
                        + LocalStatusReporter.sum(UserMetrics.READINGS_REJECTED),
                written,
                late,
                rejected,
                LocalStatusReporter.sum(UserMetrics.TABLES_CREATED));
    }

    long inFlight() {
        return in - written - late - rejected;
    }
}
