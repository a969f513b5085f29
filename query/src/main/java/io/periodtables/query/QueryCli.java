package io.periodtables.query;

import io.periodtables.conf.ConfigException;
import io.periodtables.conf.ConfigLoader;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.conf.TableNaming;

import org.apache.flink.annotation.PublicEvolving;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code query} command line: {@code range}, {@code latest} and {@code plan}, each with its
 * own flags, plus any configuration key as {@code --key value} or {@code --config file} (the
 * job's configuration, so the tables are found where the job wrote them). Readings go to
 * standard output, the report of what was read to standard error. Exit status 0 on success,
 * 2 for a bad command line or configuration, 1 when DynamoDB could not answer.
 */
@PublicEvolving
public final class QueryCli {

    static final String USAGE = String.join("\n",
            "usage: QueryCli <command> [flags] [--config file.properties] [--<configuration key> value ...]",
            "  range  --device D --from T1 --to T2 [--format json|table]",
            "         readings of [T1, T2) in time order; T: ISO-8601 instant, date (start in tables.zone) or epoch ms",
            "  latest --device D [--n N] [--format json|table]",
            "         the newest N (default 1) readings, newest first",
            "  plan   --events-per-second R [--peak P] [--device-peak K] (--item-bytes B | --sample reading.json)",
            "         [--retention D] [--emit-config] [--price-wcu-hour 0.00065] [--price-rcu-hour 0.00013]",
            "         [--price-write-million 0.625] [--price-storage-gb-month 0.25]",
            "         period, shards, capacity tiers and monthly cost; --emit-config prints the tables.* keys",
            "         (the plan then goes to standard error)");

    private static final Set<String> READ_FLAGS = Set.of("device", "from", "to", "n", "format");
    private static final Set<String> PLAN_FLAGS = Set.of("events-per-second", "peak", "device-peak", "item-bytes",
            "sample", "retention", "price-wcu-hour", "price-rcu-hour", "price-write-million", "price-storage-gb-month");

    private QueryCli() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("help") || args[0].equals("--help")) {
            (args.length == 0 ? err : out).println(USAGE);
            return args.length == 0 ? 2 : 0;
        }
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        try {
            switch (args[0]) {
                case "range":
                    return range(CliArgs.parse(rest, READ_FLAGS, Set.of()), out, err);
                case "latest":
                    return latest(CliArgs.parse(rest, READ_FLAGS, Set.of()), out, err);
                case "plan":
                    return plan(CliArgs.parse(rest, PLAN_FLAGS, Set.of("emit-config")), out, err);
                default:
                    err.println("unknown command '" + args[0] + "'\n" + USAGE);
                    return 2;
            }
        } catch (ConfigException | IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        } catch (QueryFailedException e) {
            err.println(e.getMessage());
            return 1;
        }
    }

    private static int range(CliArgs cli, PrintStream out, PrintStream err) {
        PeriodTablesConfig config = ConfigLoader.load(cli.configArgs(), Map.of(), true);
        String device = cli.required("device");
        Instant from = cli.instant("from", config.calendar().zone());
        Instant to = cli.instant("to", config.calendar().zone());
        ReadingOutput format = ReadingOutput.parse(cli.optional("format", "json"));
        try (ReadingsQuery query = ReadingsQuery.create(config, QuerySettings.defaults())) {
            QueryReport report = query.range(device, from, to, format.printer(out, tableWidth(config.naming(), from)));
            out.flush();
            err.print(report.summary());
        }
        return 0;
    }

    private static int latest(CliArgs cli, PrintStream out, PrintStream err) {
        PeriodTablesConfig config = ConfigLoader.load(cli.configArgs(), Map.of(), true);
        String device = cli.required("device");
        int n = (int) cli.number("n", 1);
        ReadingOutput format = ReadingOutput.parse(cli.optional("format", "json"));
        try (ReadingsQuery query = ReadingsQuery.create(config, QuerySettings.defaults().withTablesInFlight(2))) {
            QueryResult result = query.latest(device, n);
            result.readings().forEach(format.printer(out, tableWidth(config.naming(), Instant.now())));
            out.flush();
            err.print(result.report().summary());
        }
        return 0;
    }

    private static int plan(CliArgs cli, PrintStream out, PrintStream err) {
        PeriodTablesConfig config = ConfigLoader.load(cli.configArgs(), Map.of(), true);
        cli.required("events-per-second");
        double rate = cli.number("events-per-second", 0);
        double peak = cli.number("peak", rate);
        double devicePeak = cli.number("device-peak", peak);
        Prices defaults = Prices.usEast1();
        Prices prices = new Prices(cli.number("price-wcu-hour", defaults.wcuHour()),
                cli.number("price-rcu-hour", defaults.rcuHour()),
                cli.number("price-write-million", defaults.writeRequestsPerMillion()),
                cli.number("price-storage-gb-month", defaults.storageGbMonth()));
        if (cli.has("item-bytes") == cli.has("sample")) {
            throw new IllegalArgumentException("plan needs exactly one of --item-bytes B and --sample reading.json");
        }
        CapacityPlan plan;
        if (cli.has("item-bytes")) {
            long bytes = (long) cli.number("item-bytes", 0);
            plan = CapacityPlanner.plan(new PlanInput(rate, peak, devicePeak, bytes, cli.duration("retention")), prices, config);
        } else {
            plan = planForSample(Path.of(cli.required("sample")), rate, peak, devicePeak, cli, prices, config);
        }
        boolean emit = cli.has("emit-config");
        (emit ? err : out).print(PlanReport.render(plan, prices));
        if (emit) {
            out.print(PlanReport.configText(plan, config));
        }
        return 0;
    }

    /** The sample's item size depends on the shard suffix, and the shard count on the item size: plan twice. */
    private static CapacityPlan planForSample(Path sample, double rate, double peak, double devicePeak, CliArgs cli,
            Prices prices, PeriodTablesConfig config) {
        String json;
        try {
            json = Files.readString(sample, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("--sample '" + sample + "': cannot read it: " + e.getMessage());
        }
        CapacityPlan plan = null;
        int shards = 1;
        for (int round = 0; round < 2; round++) {
            long bytes;
            try {
                bytes = SampleItem.largestBytes(json, config, shards);
            } catch (IOException e) {
                throw new IllegalArgumentException("--sample '" + sample + "': " + e.getMessage());
            }
            plan = CapacityPlanner.plan(new PlanInput(rate, peak, devicePeak, bytes, cli.duration("retention")), prices, config);
            if (plan.shards() == shards) {
                break;
            }
            shards = plan.shards();
        }
        return plan;
    }

    private static int tableWidth(TableNaming naming, Instant at) {
        return Math.max(naming.periodTableOf(at).length(), naming.lateTable(at).length());
    }
}
