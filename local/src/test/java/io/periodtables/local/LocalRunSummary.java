package io.periodtables.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.query.cli.QueryCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A local run's summary as printed: its table lines (items and tier per table of the prefix, an open
 * table's note after them)
 * and its totals line. {@link #assertTotalsMatchTables} checks the invariant the run promises:
 * every reading in is in exactly one table, and the totals are the tables' item counts.
 */
record LocalRunSummary(
        Map<String, Long> items, Map<String, String> tiers, long in, long written, long late, long rejected) {
    private static final Pattern TOTALS =
            Pattern.compile("(?m)^in ([\\d,]+) = written ([\\d,]+) \\+ late ([\\d,]+) \\+ rejected ([\\d,]+)$");

    static LocalRunSummary parse(String out, String prefix) {
        Pattern tableLine = Pattern.compile(
                "(?m)^(" + Pattern.quote(prefix) + "_\\S+)\\s+([\\d,]+)\\s+(\\S*)\\s+(\\S+)(?:  \\(.*\\))?$");
        Map<String, Long> items = new LinkedHashMap<>();
        Map<String, String> tiers = new LinkedHashMap<>();
        Matcher table = tableLine.matcher(out);
        while (table.find()) {
            items.put(table.group(1), number(table.group(2)));
            tiers.put(table.group(1), table.group(3));
        }
        Matcher totals = TOTALS.matcher(out);
        assertThat(totals.find()).as("a totals line in%n%s", out).isTrue();
        return new LocalRunSummary(
                items,
                tiers,
                number(totals.group(1)),
                number(totals.group(2)),
                number(totals.group(3)),
                number(totals.group(4)));
    }

    /**
     * Runs the "One device" query the summary printed, its {@code .flink-local/} files and chart
     * under the run's folder {@code dir}, and checks that it answers with readings.
     */
    static void assertPrintedQueryAnswers(String out, Path dir) {
        String rows = runPrintedQuery(out, dir, "table");
        assertThat(rows.lines().count()).as("a header and readings: %s", rows).isGreaterThan(1);
    }

    /** The event times of the readings the summary's "One device" query answers, in time order. */
    static List<Instant> printedQueryTimes(String out, Path dir) {
        Pattern timestamp = Pattern.compile("\"timestamp\":\"([^\"]+)\"");
        return runPrintedQuery(out, dir, "json")
                .lines()
                .map(timestamp::matcher)
                .filter(Matcher::find)
                .map(m -> Instant.parse(m.group(1)))
                .toList();
    }

    private static String runPrintedQuery(String out, Path dir, String format) {
        Matcher device =
                Pattern.compile("(?m)^One device: ./query/run-query (.+)$").matcher(out);
        assertThat(device.find()).as(out).isTrue();
        String[] args = device.group(1)
                .replace(".flink-local/", dir.resolve(".flink-local") + "/")
                .replace("--chart device-", "--chart " + dir + "/device-")
                .replace("--format table", "--format " + format)
                .split(" ");
        ByteArrayOutputStream rows = new ByteArrayOutputStream();
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        int status = QueryCli.run(
                args,
                new PrintStream(rows, true, StandardCharsets.UTF_8),
                new PrintStream(report, true, StandardCharsets.UTF_8));
        assertThat(status).as(report.toString(StandardCharsets.UTF_8)).isZero();
        return rows.toString(StandardCharsets.UTF_8);
    }

    static long number(String text) {
        return Long.parseLong(text.replace(",", ""));
    }

    /** Items of the period tables (neither late nor rejected, nor the derived latest and rollups), by table. */
    Map<String, Long> periodTables() {
        Map<String, Long> periods = new LinkedHashMap<>(items);
        periods.keySet()
                .removeIf(t -> t.contains("_late_")
                        || t.endsWith("_rejected")
                        || t.contains("_rollups_")
                        || t.endsWith("_latest"));
        return periods;
    }

    private long itemsOf(java.util.function.Predicate<String> table) {
        return items.entrySet().stream()
                .filter(e -> table.test(e.getKey()))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    /** in = written + late + rejected, and each of them is what its tables hold. */
    void assertTotalsMatchTables() {
        assertThat(in).as("readings in").isPositive().isEqualTo(written + late + rejected);
        assertThat(written)
                .as("written = items of the period tables %s", items)
                .isEqualTo(periodTables().values().stream()
                        .mapToLong(Long::longValue)
                        .sum());
        assertThat(late).as("late = items of the late tables %s", items).isEqualTo(itemsOf(t -> t.contains("_late_")));
        assertThat(rejected)
                .as("rejected = items of the rejected table %s", items)
                .isEqualTo(itemsOf(t -> t.endsWith("_rejected")));
        periodTables().keySet().forEach(t -> assertThat(tiers.get(t)).as(t).isIn("CURRENT", "PREVIOUS", "OLDER"));
    }
}
