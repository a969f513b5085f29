package io.periodtables.query.cli;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.TableKeys;
import io.periodtables.query.plan.BillingComparison;
import io.periodtables.query.plan.CapacityPlan;
import io.periodtables.query.plan.CapacityPlanner;
import io.periodtables.query.plan.FleetShape;
import io.periodtables.query.plan.PlanInput;
import io.periodtables.query.plan.PlanReport;
import io.periodtables.query.plan.Prices;
import io.periodtables.query.plan.SampleItem;
import io.periodtables.query.plan.TableWrites;
import io.periodtables.query.plan.WritesReport;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/** The {@code plan} command: period, shards, capacity tiers and monthly cost for a load. */
@Command(
        name = "plan",
        sortOptions = false,
        description = "Chooses the period, the shard count and the capacity tiers for a load, with the monthly cost.")
public final class PlanCommand implements Callable<Integer> {
    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help and exit.")
    boolean help;

    @Option(
            names = "--events-per-second",
            paramLabel = "R",
            converter = CliOptions.NonNegative.class,
            description = "Average readings per second, whole fleet. Of --events-per-second, --devices and"
                    + " --reading-interval give two, the third follows (R = D / the interval, D = R x the interval);"
                    + " with R alone the interval is PT10S.")
    Double rate;

    @Mixin
    FleetOptions fleetOptions;

    @Option(
            names = "--peak",
            paramLabel = "P",
            converter = CliOptions.NonNegative.class,
            description = "Peak readings per second, whole fleet. Default: R.")
    Double peak;

    @Option(
            names = "--peak-to-mean",
            paramLabel = "X",
            converter = CliOptions.NonNegative.class,
            description =
                    "The rate profile instead of --peak: peak = X * R (1 for a steady fleet, more for a spiky one).")
    Double peakToMean;

    @Option(
            names = "--device-peak",
            paramLabel = "K",
            converter = CliOptions.NonNegative.class,
            description = "Peak readings per second of the busiest device. Default: P.")
    Double devicePeak;

    @ArgGroup(exclusive = true, multiplicity = "1")
    ItemSize itemSize;

    /** How big an item is: a number, or measured from a sample reading. */
    static final class ItemSize {
        @Option(names = "--item-bytes", paramLabel = "B", description = "Item size in bytes.")
        Long bytes;

        @Option(
                names = "--sample",
                paramLabel = "reading.json",
                description = "A reading as the job receives it; its item is measured.")
        Path sample;
    }

    @Option(
            names = "--retention",
            paramLabel = "D",
            converter = CliOptions.IsoDuration.class,
            description = "How long tables are kept (ISO-8601, e.g. P30D): storage cost and retention setting.")
    Duration retention;

    @Option(
            names = "--emit-config",
            description = "Print the tables.* keys to standard output (the plan goes to standard error).")
    boolean emitConfig;

    @Option(
            names = "--price-wcu-hour",
            paramLabel = "USD",
            converter = CliOptions.NonNegative.class,
            description = "Price of one provisioned WCU-hour. Default: us-east-1.")
    Double wcuHour;

    @Option(
            names = "--price-rcu-hour",
            paramLabel = "USD",
            converter = CliOptions.NonNegative.class,
            description = "Price of one provisioned RCU-hour. Default: us-east-1.")
    Double rcuHour;

    @Option(
            names = "--price-write-million",
            paramLabel = "USD",
            converter = CliOptions.NonNegative.class,
            description = "Price of a million on-demand writes. Default: us-east-1.")
    Double writeMillion;

    @Option(
            names = "--price-storage-gb-month",
            paramLabel = "USD",
            converter = CliOptions.NonNegative.class,
            description = "Price of a GB-month of storage. Default: us-east-1.")
    Double storageGbMonth;

    /** The job's configuration keys: {@code --key value}, {@code --config file}. */
    @Unmatched
    List<String> configuration = new ArrayList<>();

    private final CliOptions.Streams streams;

    PlanCommand(CliOptions.Streams streams) {
        this.streams = streams;
    }

    @Override
    public Integer call() {
        PeriodTablesConfig config = CliOptions.configuration(configuration);
        List<String> defaults = new ArrayList<>();
        FleetShape fleet = fleet(defaults);
        double rate = this.rate != null ? this.rate : fleet.readingsPerSecond();
        if (peak != null && peakToMean != null) {
            throw new IllegalArgumentException("--peak and --peak-to-mean both give the peak; use one");
        }
        double p = peak != null ? peak : peakToMean != null ? peakToMean * rate : rate;
        double k = devicePeak != null ? devicePeak : p;
        Prices d = Prices.usEast1();
        Prices prices = new Prices(
                wcuHour != null ? wcuHour : d.wcuHour(),
                rcuHour != null ? rcuHour : d.rcuHour(),
                writeMillion != null ? writeMillion : d.writeRequestsPerMillion(),
                storageGbMonth != null ? storageGbMonth : d.storageGbMonth());
        CapacityPlan plan = itemSize.bytes != null
                ? CapacityPlanner.plan(new PlanInput(rate, p, k, itemSize.bytes, retention), prices, config)
                : planForSample(itemSize.sample, rate, p, k, prices, config);
        PrintStream report = emitConfig ? streams.err() : streams.out();
        report.print(PlanReport.render(plan, prices));
        TableWrites writes = TableWrites.of(fleet, plan.input().itemBytes(), plan.period(), config);
        report.printf(
                "inputs          %s; the job's keys: latest.enabled %s, latest.interval %s, rollups.every %s"
                        + " (--latest.interval, --rollups.every …)%n",
                defaults.isEmpty() ? "every fleet flag given" : "defaults " + String.join(", ", defaults),
                config.get(ConfigKeys.LATEST_ENABLED),
                config.get(ConfigKeys.LATEST_INTERVAL),
                config.find(ConfigKeys.ROLLUPS_EVERY)
                        .map(grains -> grains.stream().map(Duration::toString).collect(Collectors.joining(",")))
                        .orElse("(unset)"));
        report.print(WritesReport.render(writes, plan, prices, config));
        BillingComparison billing = BillingComparison.of(plan, prices, config);
        report.print(PlanReport.renderBilling(
                billing, plan, config.get(TableKeys.CAPACITY_TARGET_UTILIZATION), writes.derivedMonthly(prices)));
        if (emitConfig) {
            streams.out()
                    .print(PlanReport.configText(
                            plan, config, billing, PlanReport.recommend(billing, plan, Prices.usEast1())));
        }
        return 0;
    }

    /**
     * The fleet from two of {@code --events-per-second}, {@code --devices} and {@code
     * --reading-interval} (the reading interval defaults to PT10S), adding to {@code defaults} each
     * input it took by default.
     */
    private FleetShape fleet(List<String> defaults) {
        Long devices = fleetOptions.devices;
        Duration interval = fleetOptions.readingInterval;
        if (rate != null && devices != null && interval != null) {
            throw new IllegalArgumentException(
                    "--events-per-second, --devices and --reading-interval: give two of them, the third follows");
        }
        long count;
        if (rate == null) {
            if (devices == null || interval == null) {
                throw new IllegalArgumentException(
                        "--events-per-second is required unless --devices and --reading-interval give it");
            }
            count = devices;
        } else if (devices != null) {
            count = devices;
            interval = Duration.ofMillis(Math.max(1, Math.round(devices / rate * 1000)));
        } else {
            if (interval == null) {
                interval = Duration.ofSeconds(10);
                defaults.add("--reading-interval PT10S");
            }
            count = Math.max(1, Math.round(rate * interval.toMillis() / 1000.0));
        }
        return fleetOptions.shape(count, interval, defaults);
    }

    /** The sample's item size depends on the shard suffix, and the shard count on the item size: plan twice. */
    private CapacityPlan planForSample(
            Path sample, double rate, double p, double k, Prices prices, PeriodTablesConfig config) {
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
            plan = CapacityPlanner.plan(new PlanInput(rate, p, k, bytes, retention), prices, config);
            if (plan.shards() == shards) {
                break;
            }
            shards = plan.shards();
        }
        return plan;
    }
}
