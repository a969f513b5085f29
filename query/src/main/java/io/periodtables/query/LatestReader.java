package io.periodtables.query;

import io.periodtables.core.period.TableNaming;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code latest}: walks the existing period tables from the newest period backwards, each
 * queried newest first ({@code ScanIndexForward=false}, {@code Limit n}) on every shard, until
 * it has {@code n} readings (periods do not overlap, so no older table can hold a newer one);
 * then asks the late tables that can hold a reading newer than the oldest of those — months
 * from that reading's month on (a late table's month is never before its readings'), or all
 * late tables when the period tables held fewer than {@code n} — and keeps the newest
 * {@code n} of all.
 */
final class LatestReader {

    private final TableNaming naming;
    private final TableCatalog catalog;
    private final TableReader reader;
    private final int tablesInFlight;

    LatestReader(TableNaming naming, TableCatalog catalog, TableReader reader, int tablesInFlight) {
        this.naming = naming;
        this.catalog = catalog;
        this.reader = reader;
        this.tablesInFlight = tablesInFlight;
    }

    /** The newest {@code n} readings of the device, newest first. */
    QueryResult read(String deviceId, int n) {
        QueryReport.Builder report = new QueryReport.Builder();
        TableCatalog.Tables tables = Futures.await(catalog.list(), "Listing the tables of prefix " + naming.prefix());

        List<StoredReading> found = new ArrayList<>();
        Iterator<TableNaming.TableRef> periods = tables.periodTables().iterator();
        ArrayDeque<CompletableFuture<TableRead>> inFlight = new ArrayDeque<>();
        while (found.size() < n && (periods.hasNext() || !inFlight.isEmpty())) {
            while (inFlight.size() < tablesInFlight && periods.hasNext()) {
                inFlight.add(reader.newest(periods.next().name(), deviceId, n));
            }
            TableRead read = Futures.await(inFlight.poll(), "Reading a period table");
            report.add(read, false);
            found.addAll(read.readings());
        }

        YearMonth firstLateMonth = found.size() < n
                ? YearMonth.of(1, 1)
                : YearMonth.from(found.get(n - 1).eventTime().atZone(ZoneOffset.UTC));
        List<CompletableFuture<TableRead>> lateReads = new ArrayList<>();
        for (TableNaming.TableRef late : tables.lateTables()) {
            if (!late.lateMonth().isBefore(firstLateMonth)) {
                lateReads.add(reader.newest(late.name(), deviceId, n));
            }
        }
        List<StoredReading> all = new ArrayList<>();
        for (CompletableFuture<TableRead> lateRead : lateReads) {
            TableRead read = Futures.await(lateRead, "Reading a late table");
            report.add(read, true);
            all.addAll(read.readings());
        }

        // oldest first, then reversed: the late copy of a reading stays the one kept
        List<StoredReading> newest = new ArrayList<>();
        InTimeOrder merge = new InTimeOrder(all, naming::isLateTable, newest::add, report);
        found.stream().sorted(InTimeOrder.oldestFirst(naming::isLateTable)).forEach(merge::offer);
        merge.finish();
        List<StoredReading> result = new ArrayList<>(newest.subList(Math.max(0, newest.size() - n), newest.size()));
        Collections.reverse(result);
        return new QueryResult(result, report.withReadings(result.size()).build());
    }
}
