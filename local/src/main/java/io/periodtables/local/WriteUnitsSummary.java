package io.periodtables.local;

import io.periodtables.core.config.UserMetrics;
import io.periodtables.core.period.TableNaming;
import io.periodtables.core.period.TableNaming.TableRef;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;

/**
 * The writes the run's tables took, by kind of table, from the writers' counters: the sinks' items
 * per table ({@code recordsWritten}) and the latest writers' puts, refused conditional ones
 * included ({@code latestPuts}, {@code latestNotNewer}: DynamoDB bills both). An item up to 1 KB
 * is a write unit; the writers table's few items are not counted.
 */
final class WriteUnitsSummary {

    private WriteUnitsSummary() {}

    /** Prints the line for the run that just ended (the counters of this JVM's local run). */
    static void print(TableNaming naming, PrintStream out) {
        out.println(line(
                naming,
                LocalStatusReporter.sumPerTable(UserMetrics.RECORDS_WRITTEN),
                LocalStatusReporter.sum(UserMetrics.LATEST_PUTS)
                        + LocalStatusReporter.sum(UserMetrics.LATEST_NOT_NEWER)));
    }

    /** The line for {@code perTable} items written and {@code latest} puts. */
    static String line(TableNaming naming, Map<String, Long> perTable, long latest) {
        long period = 0;
        long late = 0;
        long rejected = 0;
        long rollups = 0;
        for (Map.Entry<String, Long> e : perTable.entrySet()) {
            TableRef.Kind kind = naming.parse(e.getKey()).map(TableRef::kind).orElse(null);
            if (kind == TableRef.Kind.PERIOD) {
                period += e.getValue();
            } else if (kind == TableRef.Kind.LATE) {
                late += e.getValue();
            } else if (kind == TableRef.Kind.REJECTED) {
                rejected += e.getValue();
            } else if (kind == TableRef.Kind.ROLLUPS) {
                rollups += e.getValue();
            }
        }
        long stored = period + late;
        long all = period + late + rejected + rollups + latest;
        return String.format(
                Locale.ROOT,
                "writes by table (a write unit each up to 1 KB): period %,d + latest %,d + rollups %,d + late %,d +"
                        + " rejected %,d = %,d, %s per stored reading",
                period,
                latest,
                rollups,
                late,
                rejected,
                all,
                stored == 0 ? "—" : String.format(Locale.ROOT, "%.3f", (double) all / stored));
    }
}
