package io.periodtables.query;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Merges the readings of the period tables, which arrive oldest first table after table, with
 * the (few) readings found in late tables, into one stream ordered by {@code sk}. One reading
 * has one {@code sk}, so an equal {@code sk} is a second copy of the same reading (a replay
 * wrote it to a period table and, later, to a late table): the copy in the late table is the
 * later write and is the one kept, as DynamoDB's last-write-wins would.
 */
final class InTimeOrder {

    /** By {@code sk}; for one {@code sk}, late tables first, the newest write month first. */
    static Comparator<StoredReading> oldestFirst(Predicate<String> isLateTable) {
        return Comparator.comparing(StoredReading::sk)
                .thenComparing(r -> !isLateTable.test(r.table()))
                .thenComparing(StoredReading::table, Comparator.reverseOrder());
    }

    private final List<StoredReading> late;
    private final Consumer<StoredReading> out;
    private final QueryReport.Builder report;
    private int next;
    private String lastSk;

    /** {@code late}: the late tables' readings, in any order. */
    InTimeOrder(
            List<StoredReading> late,
            Predicate<String> isLateTable,
            Consumer<StoredReading> out,
            QueryReport.Builder report) {
        this.late = new ArrayList<>(late);
        this.late.sort(oldestFirst(isLateTable));
        this.out = out;
        this.report = report;
    }

    /** The next period-table reading; never older than the one offered before it. */
    void offer(StoredReading reading) {
        while (next < late.size() && late.get(next).sk().compareTo(reading.sk()) <= 0) {
            emit(late.get(next++));
        }
        emit(reading);
    }

    /** Emits the late readings after the last period-table reading. */
    void finish() {
        while (next < late.size()) {
            emit(late.get(next++));
        }
    }

    private void emit(StoredReading reading) {
        if (reading.sk().equals(lastSk)) {
            report.duplicate();
            return;
        }
        lastSk = reading.sk();
        report.emitted();
        out.accept(reading);
    }
}
