package io.periodtables.query.plan;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;

/** A {@link CapacityPlan} for people, and as the {@code tables.*} configuration that implements it. */
@PublicEvolving
public final class PlanReport {

    private PlanReport() {}

    /** The plan as text: one line per decision, the arithmetic that led to it, the monthly costs. */
    public static String render(CapacityPlan plan, Prices prices) {
        PlanInput in = plan.input();
        StringBuilder sb = new StringBuilder();
        line(
                sb,
                "workload",
                "%s readings/s average, %s/s peak, %s/s from the busiest device",
                number(in.eventsPerSecond()),
                number(in.peakPerSecond()),
                number(in.devicePeakPerSecond()));
        line(
                sb,
                "item",
                "%d B -> %d WCU per write (1 WCU per started KB); %d B stored with DynamoDB's 100 B overhead",
                in.itemBytes(),
                plan.wcuPerWrite(),
                plan.storedBytesPerItem());
        line(
                sb,
                "partition fill",
                "%s B/s fill a 10 GB partition in %.1f h",
                number(in.eventsPerSecond() * in.itemBytes()),
                plan.partitionFillTime().toSeconds() / 3600.0);
        line(sb, "period", "%s (the longest period shorter than the fill time)", plan.period());
        line(
                sb,
                "shards",
                "%d (busiest device %s WCU at peak -> %s WCU per partition key, limit 1,000)",
                plan.shards(),
                number(in.devicePeakPerSecond() * plan.wcuPerWrite()),
                number(plan.perKeyWcu()));
        line(
                sb,
                "capacity tiers",
                "current %s, previous %s, older %s (WCU/RCU)",
                plan.current(),
                plan.previous(),
                plan.older());
        line(
                sb,
                "tables",
                "%.2f current (with the prebuilt next one), %d previous, %d older %s",
                plan.currentTables(),
                plan.previousTables(),
                plan.olderTables(),
                horizon(in.retention()));
        line(sb, "storage", "%.1f GB", plan.storedGb());
        sb.append(String.format(
                Locale.ROOT,
                "monthly cost (730 h; $%s/WCU-h, $%s/RCU-h, $%s per million writes, $%s/GB-month)%n",
                plain(prices.wcuHour()),
                plain(prices.rcuHour()),
                plain(prices.writeRequestsPerMillion()),
                plain(prices.storageGbMonth())));
        CapacityPlan.Cost p = plan.provisioned();
        line(
                sb,
                "  provisioned",
                "$%,.2f = writes $%,.2f + reads $%,.2f + storage $%,.2f (period tables)",
                p.total(),
                p.writes(),
                p.reads(),
                p.storage());
        CapacityPlan.Cost o = plan.onDemand();
        line(
                sb,
                "  on-demand",
                "$%,.2f = writes $%,.2f + storage $%,.2f (period tables; reads are paid per read, not included)",
                o.total(),
                o.writes(),
                o.storage());
        plan.warnings().forEach(w -> sb.append("warning: ").append(w).append(System.lineSeparator()));
        return sb.toString();
    }

    /**
     * Fixed tier, sized from the peak, auto scaling and on-demand side by side, the recommendation and the break-even.
     */
    public static String renderBilling(BillingComparison b, CapacityPlan plan, double targetUtilization) {
        return renderBilling(b, plan, targetUtilization, 0);
    }

    /**
     * As {@link #renderBilling(BillingComparison, CapacityPlan, double)}, the period tables' lines
     * as they are, the table class totals and the recommendation with {@code derivedMonthly}, the
     * other tables' writes ({@link TableWrites#derivedMonthly}), added: on-demand in every case.
     */
    public static String renderBilling(
            BillingComparison b, CapacityPlan plan, double targetUtilization, double derivedMonthly) {
        StringBuilder sb = new StringBuilder();
        PlanInput in = plan.input();
        sb.append(String.format(
                Locale.ROOT,
                "billing        peak-to-mean %.2f, target utilisation %.2f (open tables: %.2f)%n",
                in.eventsPerSecond() == 0 ? 1 : in.peakPerSecond() / in.eventsPerSecond(),
                targetUtilization,
                plan.currentTables()));
        double peakWcu = in.peakPerSecond() * plan.wcuPerWrite();
        costLine(
                sb,
                "  fixed tier",
                b.fixed() + " (tables.capacity.current)"
                        + (b.fixed().writeUnits() < peakWcu
                                ? String.format(Locale.ROOT, ", too small: cannot hold the peak of %,.0f WCU", peakWcu)
                                : ""),
                b.fixedCost());
        costLine(
                sb,
                "  sized",
                b.sized() + " = ceil(peak WCU / target), as the job opens the next table",
                b.sizedCost());
        costLine(sb, "  auto scaling", b.followingMean() + " following the mean (lower bound)", b.followingMeanCost());
        costLine(sb, "  on-demand", "writes per request", b.onDemandCost());
        String breakEven = Double.isInfinite(b.breakEvenPeakToMean())
                ? "never"
                : String.format(Locale.ROOT, "above a peak-to-mean ratio of %.2f", b.breakEvenPeakToMean());
        line(sb, "break-even", "on-demand costs less than sized tables %s", breakEven);
        renderTableClass(sb, b, plan, Prices.usEast1(), derivedMonthly);
        return sb.toString();
    }

    /**
     * Auto scaling and on-demand, each with closed tables on Standard and on Standard-IA ({@code
     * tables.class.closed}): the closed tables' storage at 40 % of the price and their provisioned
     * capacity at 125 % (their writes are rare), and which of the four costs least.
     */
    static void renderTableClass(
            StringBuilder sb, BillingComparison b, CapacityPlan plan, Prices prices, double derivedMonthly) {
        double all = plan.currentTables() + plan.previousTables() + plan.olderTables();
        double closedShare = all == 0 ? 0 : (plan.previousTables() + plan.olderTables()) / all;
        line(
                sb,
                "table class",
                "closed tables (%.1f %% of the data) on Standard-IA: storage 60 %% cheaper, capacity and requests 25"
                        + " %% dearer",
                100 * closedShare);
        double[] totals = classTotals(b, plan, prices);
        for (int i = 0; i < totals.length; i++) {
            sb.append(String.format(
                    Locale.ROOT,
                    "  %-42s $%,.2f/month%s%n",
                    NAMES[i],
                    totals[i] + derivedMonthly,
                    derivedMonthly > 0
                            ? String.format(
                                    Locale.ROOT,
                                    "  (period tables $%,.2f + the other tables' writes $%,.2f)",
                                    totals[i],
                                    derivedMonthly)
                            : ""));
        }
        Recommendation r = recommend(b, plan, prices);
        line(
                sb,
                "recommended",
                "%s (tables.billing=%s, tables.class.closed=%s): the cheapest that holds the peak; prewarming is"
                        + " billed once per table, not included",
                r.name(),
                r.billing(),
                r.closedClass());
    }

    private static final String[] NAMES = {
        "auto scaling (lower bound), Standard",
        "auto scaling (lower bound), Standard-IA",
        "on-demand + prewarm, Standard",
        "on-demand + prewarm, Standard-IA"
    };

    /**
     * The plan's one recommendation, which {@code --emit-config} emits: the cheapest of auto
     * scaling and on-demand, each with closed tables on Standard or Standard-IA (each of them holds
     * the peak, unlike the fixed tier).
     */
    public record Recommendation(String name, boolean onDemand, boolean infrequentAccess) {
        public String billing() {
            return onDemand ? "PAY_PER_REQUEST" : "PROVISIONED";
        }

        public String closedClass() {
            return infrequentAccess ? "STANDARD_INFREQUENT_ACCESS" : "STANDARD";
        }
    }

    /** See {@link Recommendation}. */
    public static Recommendation recommend(BillingComparison b, CapacityPlan plan, Prices prices) {
        double[] totals = classTotals(b, plan, prices);
        int cheapest = 0;
        for (int i = 1; i < totals.length; i++) {
            if (totals[i] < totals[cheapest]) {
                cheapest = i;
            }
        }
        return new Recommendation(NAMES[cheapest], cheapest >= 2, cheapest % 2 == 1);
    }

    private static double[] classTotals(BillingComparison b, CapacityPlan plan, Prices prices) {
        double all = plan.currentTables() + plan.previousTables() + plan.olderTables();
        double closedShare = all == 0 ? 0 : (plan.previousTables() + plan.olderTables()) / all;
        double closedStorage = b.onDemandCost().storage() * closedShare;
        double closedCapacity = CapacityPlanner.HOURS_PER_MONTH
                * (plan.previousTables() * unitsCost(plan.previous(), prices)
                        + plan.olderTables() * unitsCost(plan.older(), prices));
        return new double[] {
            b.followingMeanCost().total(),
            b.followingMeanCost().total() - 0.6 * closedStorage + 0.25 * closedCapacity,
            b.onDemandCost().total(),
            b.onDemandCost().total() - 0.6 * closedStorage
        };
    }

    private static double unitsCost(io.periodtables.core.capacity.Capacity capacity, Prices prices) {
        return capacity.onDemand()
                ? 0
                : capacity.writeUnits() * prices.wcuHour() + capacity.readUnits() * prices.rcuHour();
    }

    private static void costLine(StringBuilder sb, String label, String what, CapacityPlan.Cost cost) {
        line(sb, label, "$%,.2f/month  %s", cost.total(), what);
    }

    /**
     * The configuration keys that implement the plan, as {@code key=value} lines: period, shards,
     * billing, the tiers, retention when given, and {@code rotation.lead} /
     * {@code window.allowed-lateness} when the configured ones do not fit the period.
     */
    public static Map<String, String> config(CapacityPlan plan, PeriodTablesConfig config) {
        return config(plan, config, plan.onDemandIsCheaper());
    }

    /**
     * As {@link #config(CapacityPlan, PeriodTablesConfig)}, with the billing mode decided elsewhere ({@link
     * BillingComparison}).
     */
    public static Map<String, String> config(CapacityPlan plan, PeriodTablesConfig config, boolean onDemand) {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put(TableKeys.TABLES_PERIOD.name(), plan.period().toString());
        keys.put(TableKeys.TABLES_SHARDS.name(), String.valueOf(plan.shards()));
        keys.put(TableKeys.TABLES_BILLING.name(), onDemand ? "PAY_PER_REQUEST" : "PROVISIONED");
        keys.put(TableKeys.CAPACITY_CURRENT.name(), plan.current().toString());
        keys.put(TableKeys.CAPACITY_PREVIOUS.name(), plan.previous().toString());
        keys.put(TableKeys.CAPACITY_OLDER.name(), plan.older().toString());
        if (plan.input().retention() != null) {
            keys.put(
                    TableKeys.TABLES_RETENTION.name(), durationText(plan.input().retention()));
        }
        if (!plan.lead().equals(config.get(ConfigKeys.ROTATION_LEAD))) {
            keys.put(ConfigKeys.ROTATION_LEAD.name(), plan.lead().toString());
        }
        if (!plan.allowedLateness().equals(config.get(ConfigKeys.ALLOWED_LATENESS))) {
            keys.put(ConfigKeys.ALLOWED_LATENESS.name(), plan.allowedLateness().toString());
        }
        return keys;
    }

    /** {@link #config} as properties text, loadable with {@code --config}. */
    public static String configText(CapacityPlan plan, PeriodTablesConfig config, boolean onDemand) {
        return text(config(plan, config, onDemand));
    }

    /**
     * The recommendation's configuration: {@link #configText} with its billing and closed tables'
     * class, and {@code tables.capacity.current} at the {@code sized} line's capacity (the peak with
     * the target utilisation's headroom, as the job opens the next table), not at the bare peak.
     */
    public static String configText(
            CapacityPlan plan, PeriodTablesConfig config, BillingComparison billing, Recommendation recommended) {
        Map<String, String> keys = config(plan, config, recommended.onDemand());
        keys.put(TableKeys.CAPACITY_CURRENT.name(), billing.sized().toString());
        keys.put(TableKeys.TABLES_CLASS_CLOSED.name(), recommended.closedClass());
        return text(keys);
    }

    private static String text(Map<String, String> keys) {
        StringBuilder sb = new StringBuilder("# period-tables configuration from the plan command\n");
        keys.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        return sb.toString();
    }

    private static void line(StringBuilder sb, String label, String format, Object... args) {
        sb.append(String.format(Locale.ROOT, "%-15s %s%n", label, String.format(Locale.ROOT, format, args)));
    }

    /** {@code P30D} rather than {@code PT720H} when the duration is whole days. */
    static String durationText(Duration d) {
        return d.toSeconds() % 86_400 == 0 && d.toNanosPart() == 0 ? "P" + d.toDays() + "D" : d.toString();
    }

    private static String plain(double price) {
        return BigDecimal.valueOf(price).stripTrailingZeros().toPlainString();
    }

    private static String horizon(Duration retention) {
        return retention == null
                ? "(one month of tables; without --retention they keep adding up)"
                : "(retention " + durationText(retention) + ")";
    }

    private static String number(double value) {
        return value == Math.rint(value)
                ? String.format(Locale.ROOT, "%,d", (long) value)
                : String.format(Locale.ROOT, "%,.1f", value);
    }
}
