package io.periodtables.query.plan;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.PeriodLength;
import io.periodtables.core.period.TableNaming;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.flink.annotation.PublicEvolving;

/** {@link TableWrites} for people: the fleet, then one line per kind of table, naming the table it prices. */
@PublicEvolving
public final class WritesReport {

    private WritesReport() {}

    /** The fleet's shape with where each input came from, write units per reading by table, and their monthly cost. */
    public static String render(TableWrites w, CapacityPlan plan, Prices prices, PeriodTablesConfig config) {
        return render(w, plan.period(), prices, config);
    }

    /** As {@link #render(TableWrites, CapacityPlan, Prices, PeriodTablesConfig)}, for tables of {@code period}. */
    public static String render(TableWrites w, PeriodLength period, Prices prices, PeriodTablesConfig config) {
        FleetShape fleet = w.fleet();
        TableNaming naming = config.naming();
        StringBuilder sb = new StringBuilder();
        line(
                sb,
                "fleet",
                "%,d devices, a reading every %s each (%s readings/s); checkpoints every %s; parallelism %d",
                fleet.devices(),
                fleet.readingInterval(),
                number(fleet.readingsPerSecond()),
                fleet.checkpointInterval(),
                fleet.parallelism());
        line(
                sb,
                "writes/reading",
                "%.3f = period %.3f + latest %.3f + rollups %.3f + late %.3f + bookkeeping %.5f (write units per"
                        + " stored reading)",
                w.total(),
                w.period(),
                w.latest(),
                w.rollups(),
                w.late(),
                w.bookkeeping());
        line(sb, "  period", "%s_<label>: %.0f WCU per reading, priced above and below", naming.prefix(), w.period());
        if (config.get(ConfigKeys.LATEST_ENABLED)) {
            Duration every = TableWrites.latestEvery(fleet, config);
            cost(
                    sb,
                    "  latest",
                    w.monthly(w.latest(), prices),
                    "%s: a put per device at most every %s (latest.interval %s, a checkpoint every %s puts too),"
                            + " a put per reading when a device reports less often: %.3f per reading",
                    naming.latestTable(),
                    every,
                    config.get(ConfigKeys.LATEST_INTERVAL),
                    fleet.checkpointInterval(),
                    w.latest());
        } else {
            cost(sb, "  latest", 0, "%s: none (latest.enabled false)", naming.latestTable());
        }
        List<Duration> grains = config.find(ConfigKeys.ROLLUPS_EVERY).orElse(List.of());
        cost(
                sb,
                "  rollups",
                w.monthly(w.rollups(), prices),
                grains.isEmpty()
                        ? "%s_rollups_<label>: none (rollups.every unset)"
                        : "%s_rollups_<label>: an item per device and bucket with readings, grains %s: %.3f per"
                                + " reading",
                naming.prefix(),
                grains.stream().map(Duration::toString).collect(Collectors.joining(",")),
                w.rollups());
        cost(
                sb,
                "  late",
                w.monthly(w.late(), prices),
                "%s_late_<yyyy-MM>: a late reading is written there instead of its period table, counted under period",
                naming.prefix());
        cost(
                sb,
                "  bookkeeping",
                w.monthly(w.bookkeeping(), prices),
                "%s: a put per sink subtask (%d sinks x parallelism %d) per %s period",
                naming.writersTable(),
                Math.round(w.bookkeeping()
                        * fleet.readingsPerSecond()
                        * period.minimumDuration().toSeconds()
                        / fleet.parallelism()),
                fleet.parallelism(),
                period);
        cost(
                sb,
                "  derived",
                w.derivedMonthly(prices),
                "latest, rollups, late and writers tables: on-demand whatever tables.billing says (writes; storage not"
                        + " included), in every total below");
        return sb.toString();
    }

    private static void cost(StringBuilder sb, String label, double monthly, String format, Object... args) {
        line(sb, label, "$%,.2f/month  %s", monthly, String.format(Locale.ROOT, format, args));
    }

    private static void line(StringBuilder sb, String label, String format, Object... args) {
        sb.append(String.format(Locale.ROOT, "%-15s %s%n", label, String.format(Locale.ROOT, format, args)));
    }

    private static String number(double value) {
        return value == Math.rint(value)
                ? String.format(Locale.ROOT, "%,d", (long) value)
                : String.format(Locale.ROOT, "%,.1f", value);
    }
}
