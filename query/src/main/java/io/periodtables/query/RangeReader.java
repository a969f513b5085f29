package io.periodtables.query;

import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import java.time.Duration;
import java.time.Instant;
import java.time.YearMonth;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * {@code range}: the late tables that can hold readings of the range are read first (they are
 * few and small), then the period tables oldest first with a read-ahead of
 * {@code tablesInFlight} tables, each table's readings merged with the late ones as they come,
 * so only the tables in flight are held in memory. With an archive, a table that does not exist
 * is read from the archive instead ({@link ArchiveRanges}).
 */
final class RangeReader {

    private final TableNaming naming;
    private final TableReader reader;
    private final Duration maxFuture;
    private final int tablesInFlight;

    RangeReader(TableNaming naming, TableReader reader, Duration maxFuture, int tablesInFlight) {
        this.naming = naming;
        this.reader = reader;
        this.maxFuture = maxFuture;
        this.tablesInFlight = tablesInFlight;
    }

    /** {@code archive}: where deleted tables are read from, or null. */
    QueryReport read(
            String deviceId,
            Instant from,
            Instant to,
            Instant now,
            ArchiveRanges archive,
            Consumer<StoredReading> out) {
        long fromMillis = from.toEpochMilli();
        long toMillis = to.toEpochMilli();
        QueryReport.Builder report = new QueryReport.Builder();

        List<CompletableFuture<TableRead>> lateReads = new ArrayList<>();
        List<YearMonth> months = TablePlan.lateMonths(from, maxFuture, now);
        for (YearMonth month : months) {
            lateReads.add(reader.range(naming.lateTable(TablePlan.inMonth(month)), deviceId, fromMillis, toMillis));
        }
        List<StoredReading> late = new ArrayList<>();
        for (int i = 0; i < lateReads.size(); i++) {
            TableRead read = Futures.await(lateReads.get(i), "Reading a late table");
            if (!read.exists() && archive != null) {
                read = archive.late(months.get(i), deviceId, fromMillis, toMillis);
            }
            report.add(read, true);
            late.addAll(read.readings());
        }

        InTimeOrder merge = new InTimeOrder(late, naming::isLateTable, out, report);
        Iterator<Period> periods =
                TablePlan.periodsOf(naming.calendar(), from, to).iterator();
        ArrayDeque<CompletableFuture<TableRead>> inFlight = new ArrayDeque<>();
        ArrayDeque<Period> inFlightPeriods = new ArrayDeque<>();
        while (inFlight.size() < tablesInFlight && periods.hasNext()) {
            inFlightPeriods.add(periods.next());
            inFlight.add(reader.range(naming.periodTable(inFlightPeriods.peekLast()), deviceId, fromMillis, toMillis));
        }
        while (!inFlight.isEmpty()) {
            TableRead read = Futures.await(inFlight.poll(), "Reading a period table");
            Period period = inFlightPeriods.poll();
            if (periods.hasNext()) {
                inFlightPeriods.add(periods.next());
                inFlight.add(
                        reader.range(naming.periodTable(inFlightPeriods.peekLast()), deviceId, fromMillis, toMillis));
            }
            if (!read.exists() && archive != null) {
                read = archive.period(period, deviceId, fromMillis, toMillis);
            }
            report.add(read, false);
            read.readings().forEach(merge::offer);
        }
        merge.finish();
        return report.build();
    }
}
