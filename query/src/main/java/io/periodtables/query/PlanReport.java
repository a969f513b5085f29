package io.periodtables.query;

import io.periodtables.conf.ConfigKeys;
import io.periodtables.conf.PeriodTablesConfig;

import org.apache.flink.annotation.PublicEvolving;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A {@link CapacityPlan} for people, and as the {@code tables.*} configuration that implements it. */
@PublicEvolving
public final class PlanReport {

    private PlanReport() {}

    /** The plan as text: one line per decision, the arithmetic that led to it, the monthly costs. */
    public static String render(CapacityPlan plan, Prices prices) {
        PlanInput in = plan.input();
        StringBuilder sb = new StringBuilder();
        line(sb, "workload", "%s readings/s average, %s/s peak, %s/s from the busiest device",
                number(in.eventsPerSecond()), number(in.peakPerSecond()), number(in.devicePeakPerSecond()));
        line(sb, "item", "%d B -> %d WCU per write (1 WCU per started KB); %d B stored with DynamoDB's 100 B overhead",
                in.itemBytes(), plan.wcuPerWrite(), plan.storedBytesPerItem());
        line(sb, "partition fill", "%s B/s fill a 10 GB partition in %.1f h",
                number(in.eventsPerSecond() * in.itemBytes()), plan.partitionFillTime().toSeconds() / 3600.0);
        line(sb, "period", "%s (the longest period shorter than the fill time)", plan.period());
        line(sb, "shards", "%d (busiest device %s WCU at peak -> %s WCU per partition key, limit 1,000)",
                plan.shards(), number(in.devicePeakPerSecond() * plan.wcuPerWrite()), number(plan.perKeyWcu()));
        line(sb, "capacity tiers", "current %s, previous %s, older %s (WCU/RCU)",
                plan.current(), plan.previous(), plan.older());
        line(sb, "tables", "%.2f current (with the prebuilt next one), %d previous, %d older %s",
                plan.currentTables(), plan.previousTables(), plan.olderTables(), horizon(in.retention()));
        line(sb, "storage", "%.1f GB", plan.storedGb());
        sb.append(String.format(Locale.ROOT, "monthly cost (730 h; $%s/WCU-h, $%s/RCU-h, $%s per million writes, $%s/GB-month)%n",
                prices.wcuHour(), prices.rcuHour(), prices.writeRequestsPerMillion(), prices.storageGbMonth()));
        cost(sb, "provisioned", plan.provisioned(), "");
        cost(sb, "on-demand", plan.onDemand(), " (reads not included: pay per read)");
        line(sb, "cheaper", plan.onDemandIsCheaper() ? "on-demand (tables.billing=PAY_PER_REQUEST)" : "provisioned tiers");
        plan.warnings().forEach(w -> sb.append("warning: ").append(w).append(System.lineSeparator()));
        return sb.toString();
    }

    /**
     * The configuration keys that implement the plan, as {@code key=value} lines: period, shards,
     * billing, the tiers, retention when given, and {@code rotation.lead} /
     * {@code window.allowed-lateness} when the configured ones do not fit the period.
     */
    public static Map<String, String> config(CapacityPlan plan, PeriodTablesConfig config) {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put(ConfigKeys.TABLES_PERIOD.name(), plan.period().toString());
        keys.put(ConfigKeys.TABLES_SHARDS.name(), String.valueOf(plan.shards()));
        keys.put(ConfigKeys.TABLES_BILLING.name(), plan.onDemandIsCheaper() ? "PAY_PER_REQUEST" : "PROVISIONED");
        keys.put(ConfigKeys.CAPACITY_CURRENT.name(), plan.current().toString());
        keys.put(ConfigKeys.CAPACITY_PREVIOUS.name(), plan.previous().toString());
        keys.put(ConfigKeys.CAPACITY_OLDER.name(), plan.older().toString());
        if (plan.input().retention() != null) {
            keys.put(ConfigKeys.TABLES_RETENTION.name(), plan.input().retention().toString());
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
    public static String configText(CapacityPlan plan, PeriodTablesConfig config) {
        StringBuilder sb = new StringBuilder("# period-tables configuration from the plan command\n");
        config(plan, config).forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        return sb.toString();
    }

    private static void line(StringBuilder sb, String label, String format, Object... args) {
        sb.append(String.format(Locale.ROOT, "%-15s %s%n", label, String.format(Locale.ROOT, format, args)));
    }

    private static void cost(StringBuilder sb, String label, CapacityPlan.Cost cost, String remark) {
        line(sb, "  " + label, "$%,.2f = writes $%,.2f + reads $%,.2f + storage $%,.2f%s",
                cost.total(), cost.writes(), cost.reads(), cost.storage(), remark);
    }

    private static String horizon(Duration retention) {
        return retention == null ? "(one month of tables; without --retention they keep adding up)"
                : "(retention " + retention + ")";
    }

    private static String number(double value) {
        return value == Math.rint(value) ? String.format(Locale.ROOT, "%,d", (long) value)
                : String.format(Locale.ROOT, "%,.1f", value);
    }
}
