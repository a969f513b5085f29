package io.periodtables.query;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;

/**
 * What a query read: the period and late tables it read, the period tables it expected but
 * did not find (deleted past retention, or never created — reported, not an error), how many
 * readings it returned, how many copies of one reading it dropped (the same {@code sk} in a
 * period table and a late table, after a replay), how many {@code Query} requests it made, and
 * notes such as a shard count taken from the configuration because the table had no tag.
 */
@PublicEvolving
public record QueryReport(
        List<String> periodTablesRead,
        List<String> missingPeriodTables,
        List<String> lateTablesRead,
        long readings,
        long duplicatesDropped,
        long requests,
        List<String> notes) {

    public QueryReport {
        periodTablesRead = List.copyOf(periodTablesRead);
        missingPeriodTables = List.copyOf(missingPeriodTables);
        lateTablesRead = List.copyOf(lateTablesRead);
        notes = List.copyOf(notes);
    }

    /** A few lines for a person: counts, the missing tables, the notes. */
    public String summary() {
        StringBuilder sb = new StringBuilder();
        sb.append(readings)
                .append(" reading(s) from ")
                .append(periodTablesRead.size())
                .append(" period table(s) and ")
                .append(lateTablesRead.size())
                .append(" late table(s) in ")
                .append(requests)
                .append(" request(s)");
        if (duplicatesDropped > 0) {
            sb.append("; ").append(duplicatesDropped).append(" duplicate(s) dropped");
        }
        sb.append('\n');
        if (!missingPeriodTables.isEmpty()) {
            sb.append("missing period table(s): ")
                    .append(String.join(", ", missingPeriodTables))
                    .append('\n');
        }
        if (!lateTablesRead.isEmpty()) {
            sb.append("late table(s): ")
                    .append(String.join(", ", lateTablesRead))
                    .append('\n');
        }
        notes.forEach(note -> sb.append("note: ").append(note).append('\n'));
        return sb.toString();
    }

    /** Collects a report while a query runs; used from the caller's thread only. */
    static final class Builder {
        private final List<String> periodTablesRead = new ArrayList<>();
        private final List<String> missingPeriodTables = new ArrayList<>();
        private final List<String> lateTablesRead = new ArrayList<>();
        private final Map<String, List<String>> notes = new LinkedHashMap<>();
        private long readings;
        private long duplicates;
        private long requests;

        void add(TableRead read, boolean late) {
            requests += read.requests();
            read.note()
                    .ifPresent(note ->
                            notes.computeIfAbsent(note, n -> new ArrayList<>()).add(read.table()));
            if (!read.exists()) {
                if (!late) {
                    missingPeriodTables.add(read.table());
                }
                return;
            }
            (late ? lateTablesRead : periodTablesRead).add(read.table());
        }

        void emitted() {
            readings++;
        }

        /** Sets the count of returned readings, when fewer were returned than merged ({@code latest}). */
        Builder withReadings(long returned) {
            readings = returned;
            return this;
        }

        void duplicate() {
            duplicates++;
        }

        QueryReport build() {
            List<String> lines = new ArrayList<>();
            notes.forEach((note, tables) -> lines.add(note + " (" + String.join(", ", tables) + ")"));
            return new QueryReport(
                    periodTablesRead, missingPeriodTables, lateTablesRead, readings, duplicates, requests, lines);
        }
    }
}
