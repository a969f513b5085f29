package io.periodtables.local;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.Rollups;
import io.periodtables.query.cli.QueryCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The rollups part of the local run's summary, with {@code rollups.every} set: the sample
 * device's last few buckets of the finest grain (temperature), read with the query CLI's
 * {@code rollup} command while dynalite still runs, and its chart with the min–max band.
 */
final class RollupSummary {
    static final int BUCKETS = 6;
    static final String FIELD = "temperature";

    private RollupSummary() {}

    /** @param range the summary's {@code range} command for the sample device (its arguments) */
    static void print(PeriodTablesConfig config, List<String> range, PrintStream out) {
        Rollups rollups = Rollups.of(config).orElse(null);
        String device = range.get(range.indexOf("--device") + 1);
        if (rollups == null || device.startsWith("<")) {
            return;
        }
        Duration grain =
                rollups.grains().stream().min(Comparator.naturalOrder()).orElseThrow();
        List<String> args = new ArrayList<>(List.of(
                "rollup",
                "--device",
                device,
                "--from",
                range.get(range.indexOf("--from") + 1),
                "--to",
                range.get(range.indexOf("--to") + 1),
                "--every",
                grain.toString(),
                "--field",
                FIELD,
                "--config",
                range.get(range.indexOf("--config") + 1),
                "--format",
                "table",
                "--chart",
                LocalRunner.WORK_DIR.resolve(device + "-rollups.svg").toString()));
        out.println("Its rollups: ./query/run-query " + String.join(" ", args));
        Path svg = LocalRunner.WORK_DIR.resolve(device + "-rollups.svg").toAbsolutePath();
        args.set(args.size() - 1, svg.toString());
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = QueryCli.run(
                args.toArray(String[]::new),
                new PrintStream(table, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        if (status != 0) {
            out.println("No rollups: "
                    + err.toString(StandardCharsets.UTF_8).lines().findFirst().orElse("exit status " + status));
            return;
        }
        List<String> lines = table.toString(StandardCharsets.UTF_8).lines().toList();
        if (lines.size() <= 1) {
            out.println("No rollups of " + device + " yet");
            return;
        }
        out.println(lines.get(0));
        lines.subList(Math.max(1, lines.size() - BUCKETS), lines.size()).forEach(out::println);
        out.println("Its rollup chart (min-max band, average line): " + svg);
    }
}
