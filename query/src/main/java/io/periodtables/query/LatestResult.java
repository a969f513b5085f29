package io.periodtables.query;

import java.util.List;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Devices' newest readings: one per device found, where they were read ({@code source}: the
 * latest table, or the period tables when it does not exist), the devices asked for that have no
 * reading, the requests made, and notes.
 */
@PublicEvolving
public record LatestResult(
        List<StoredReading> readings, String source, List<String> notFound, long requests, List<String> notes) {

    public LatestResult {
        readings = List.copyOf(readings);
        notFound = List.copyOf(notFound);
        notes = List.copyOf(notes);
    }

    /** A few lines for a person: counts, the devices without a reading, the notes. */
    public String summary() {
        StringBuilder sb = new StringBuilder()
                .append(readings.size())
                .append(" device(s) from ")
                .append(source)
                .append(" in ")
                .append(requests)
                .append(" request(s)\n");
        if (!notFound.isEmpty()) {
            sb.append("no reading stored for: ")
                    .append(String.join(", ", notFound))
                    .append('\n');
        }
        notes.forEach(note -> sb.append("note: ").append(note).append('\n'));
        return sb.toString();
    }
}
