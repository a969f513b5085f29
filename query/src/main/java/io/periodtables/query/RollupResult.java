package io.periodtables.query;

import io.periodtables.core.item.Rollups;
import java.time.Duration;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;

/**
 * A device's rollup buckets of one grain, oldest first, and what was read: the rollups tables
 * read, those of the range that do not exist (their periods past retention, or written before
 * {@code rollups.every} was set — reported, not an error), and the {@code Query} requests made.
 */
@PublicEvolving
public record RollupResult(
        Duration grain,
        List<Rollups.Bucket> buckets,
        List<String> tablesRead,
        List<String> missingTables,
        long requests) {

    public RollupResult {
        buckets = List.copyOf(buckets);
        tablesRead = List.copyOf(tablesRead);
        missingTables = List.copyOf(missingTables);
    }

    /** A few lines for a person: counts and the missing tables. */
    public String summary() {
        StringBuilder sb = new StringBuilder()
                .append(buckets.size())
                .append(" bucket(s) of ")
                .append(grain)
                .append(" from ")
                .append(tablesRead.size())
                .append(" rollups table(s) in ")
                .append(requests)
                .append(" request(s)\n");
        if (!missingTables.isEmpty()) {
            sb.append("missing rollups table(s): ")
                    .append(String.join(", ", missingTables))
                    .append('\n');
        }
        return sb.toString();
    }
}
