package io.periodtables.bench.e2e;

import static io.periodtables.bench.BenchLog.log;

import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.Contenders;
import io.periodtables.bench.MachineFacts;
import io.periodtables.bench.Measurement;
import io.periodtables.bench.PrebuiltReadings;
import io.periodtables.bench.Stats;
import io.periodtables.bench.Tables;
import io.periodtables.bench.WarmUp;
import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.item.ReadingItems;
import io.periodtables.emulators.Dynalite;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Benchmark 1: end-to-end throughput into dynalite (a node process). Warms every
 * contender up, finds the raw loop's best concurrency, then runs the contenders interleaved
 * ({@code ours, stock, stock-parse, raw, job, job-rollups} per round) and reports medians, ranges
 * and per-round ratios.
 */
public final class E2eBench {

    static final int[] RAW_IN_FLIGHT = {2, 4, 8, 16};

    private E2eBench() {}

    public static String run(int n, int rounds) throws Exception {
        List<Measurement> all = new ArrayList<>();
        int bestInFlight;
        int warmUpRounds = 0;
        String load = MachineFacts.loadAverage();
        try (Dynalite dynamoDb = Tables.dynamoDb();
                DynamoDbClient admin = dynamoDb.syncClient();
                BenchCluster cluster = new BenchCluster()) {
            Contenders contenders = new Contenders(cluster, dynamoDb, admin, n);
            PrebuiltReadings.set(contenders.fleet(), n);

            Contenders warmUp = new Contenders(cluster, dynamoDb, admin, Math.min(n, 100_000));
            for (int round = 1; ; round++) {
                List<Measurement> measured = List.of(
                        warmUp.ourSink(0),
                        warmUp.stockSink(0),
                        warmUp.stockSinkParsing(0),
                        warmUp.rawLoop(0, 8),
                        warmUp.fullJob(0),
                        warmUp.fullJobWithRollups(0));
                for (Measurement m : measured) {
                    log("warm-up " + round + ": " + m);
                }
                warmUpRounds = round;
                if (WarmUp.over(
                        round,
                        measured.stream()
                                .map(m -> new WarmUp.Cpu(m.clientCpuSeconds(), m.clientJitSeconds()))
                                .toList())) {
                    break;
                }
            }

            Map<Integer, Double> sweep = new LinkedHashMap<>();
            for (int inFlight : RAW_IN_FLIGHT) {
                Measurement m = contenders.rawLoop(0, inFlight);
                log("sweep: " + m);
                all.add(m);
                sweep.put(inFlight, m.readingsPerSecond());
            }
            bestInFlight = sweep.entrySet().stream()
                    .max(Map.Entry.comparingByValue())
                    .orElseThrow()
                    .getKey();

            for (int round = 1; round <= rounds; round++) {
                List<Measurement> measured = List.of(
                        contenders.ourSink(round),
                        contenders.stockSink(round),
                        contenders.stockSinkParsing(round),
                        contenders.rawLoop(round, bestInFlight),
                        contenders.fullJob(round),
                        contenders.fullJobWithRollups(round));
                measured.forEach(m -> log(m.toString()));
                all.addAll(measured);
            }
            long itemBytes =
                    DynamoDbItemSize.of(new ReadingItems(contenders.config("x")).item(PrebuiltReadings.all()[0]));
            return section(n, rounds, warmUpRounds, bestInFlight, all, itemBytes, load);
        }
    }

    private static String section(
            int n, int rounds, int warmUpRounds, int bestInFlight, List<Measurement> all, long itemBytes, String load) {
        String raw = Contenders.RAW + "-" + bestInFlight;
        StringBuilder md = new StringBuilder();
        md.append("## 1. End-to-end throughput into dynalite (a node process)\n\n");
        md.append(String.format(
                Locale.ROOT,
                "N = %,d readings per run (the seed reading, %d bytes as DynamoDB counts it),"
                        + " %d hourly periods, 4 shards, 100 devices, parallelism 2; %d interleaved rounds"
                        + " (our-sink, stock-sink, stock-sink-parse: the same given the full job's JSON records,"
                        + " parsed in its"
                        + " source by the job's parser, raw-sdk, full-job, full-job-rollups: the same with"
                        + " rollups.every="
                        + Contenders.ROLLUPS_EVERY
                        + ") after %d warm-up rounds of up to 100,000 readings (%s); load average at start %s."
                        + " Each sink at its defaults (ours: 16 requests in flight, 1 s buffer time; stock: 50 in"
                        + " flight, 5 s),"
                        + " checkpoints every 10 s; the sinks read pre-built readings, the full job their pre-built"
                        + " JSON records (parsed in its source, as Kinesis records are)."
                        + " Wall time from job submission to its end; CPU of the client JVM (with and without its JIT"
                        + " compilation, a"
                        + " warm-up cost that a long-running job pays once) and of dynalite's JVM.%n%n",
                n,
                itemBytes,
                3,
                rounds,
                warmUpRounds,
                WarmUp.rule(),
                load));
        md.append("| contender | readings/s median (min–max) | client CPU s per 1,000 readings | same, JIT excluded |"
                + " dynalite CPU s per 1,000 |\n");
        md.append("|---|---|---|---|---|\n");
        for (String c : List.of(
                Contenders.OURS,
                Contenders.STOCK,
                Contenders.STOCK_PARSE,
                raw,
                Contenders.JOB,
                Contenders.JOB_ROLLUPS)) {
            List<Measurement> runs = rounds(all, c);
            md.append("| ")
                    .append(c)
                    .append(" | ")
                    .append(stats(runs, Measurement::readingsPerSecond).format("%,.0f"))
                    .append(" | ")
                    .append(stats(runs, Measurement::clientCpuPerThousand).format("%.3f"))
                    .append(" | ")
                    .append(stats(runs, Measurement::clientCpuPerThousandCompiled)
                            .format("%.3f"))
                    .append(" | ")
                    .append(stats(runs, Measurement::serverCpuPerThousand).format("%.3f"))
                    .append(" |\n");
        }
        md.append(
                "\nRatios per round (same round, run back to back): readings/s, and client CPU per reading of the full"
                        + " job"
                        + " against the stock sink's (with JIT, without), and against the stock sink's given the same"
                        + " JSON parse:\n\n"
                        + "| round | our-sink / stock | full-job / stock | full-job / stock, steady (10–90 %) |"
                        + " raw-sdk / stock | full-job CPU / stock CPU | same, JIT excluded | full-job CPU /"
                        + " stock-sink-parse CPU |\n"
                        + "|---|---|---|---|---|---|---|---|\n");
        List<Double> oursVsStock = new ArrayList<>();
        List<Double> jobVsStock = new ArrayList<>();
        List<Double> cpuVsStock = new ArrayList<>();
        List<Double> compiledVsStock = new ArrayList<>();
        List<Double> steadyVsStock = new ArrayList<>();
        List<Double> cpuVsParsing = new ArrayList<>();
        for (int r = 1; r <= rounds; r++) {
            double stock = find(all, Contenders.STOCK, r).readingsPerSecond();
            double ours = find(all, Contenders.OURS, r).readingsPerSecond() / stock;
            double job = find(all, Contenders.JOB, r).readingsPerSecond() / stock;
            double cpu = find(all, Contenders.JOB, r).clientCpuPerThousand()
                    / find(all, Contenders.STOCK, r).clientCpuPerThousand();
            double compiled = find(all, Contenders.JOB, r).clientCpuPerThousandCompiled()
                    / find(all, Contenders.STOCK, r).clientCpuPerThousandCompiled();
            oursVsStock.add(ours);
            jobVsStock.add(job);
            cpuVsStock.add(cpu);
            compiledVsStock.add(compiled);
            double parsing = find(all, Contenders.JOB, r).clientCpuPerThousand()
                    / find(all, Contenders.STOCK_PARSE, r).clientCpuPerThousand();
            cpuVsParsing.add(parsing);
            double steady = find(all, Contenders.JOB, r).phases().steadyReadingsPerSecond()
                    / find(all, Contenders.STOCK, r).phases().steadyReadingsPerSecond();
            steadyVsStock.add(steady);
            md.append(String.format(
                    Locale.ROOT,
                    "| %d | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f | %.2f |%n",
                    r,
                    ours,
                    job,
                    steady,
                    find(all, raw, r).readingsPerSecond() / stock,
                    cpu,
                    compiled,
                    parsing));
        }
        md.append(String.format(
                Locale.ROOT,
                "| median | **%s** | **%s** (target ≥ 1.0) | **%s** | | **%s** (target ≤ 1.3) | **%s** | **%s** |%n",
                Stats.of(oursVsStock).format("%.3f"),
                Stats.of(jobVsStock).format("%.3f"),
                Stats.of(steadyVsStock).format("%.3f"),
                Stats.of(cpuVsStock).format("%.2f"),
                Stats.of(compiledVsStock).format("%.2f"),
                Stats.of(cpuVsParsing).format("%.2f")));
        md.append("\nPhases of each run (median over the rounds): when the first reading was written, the steady rate"
                + " between 10 % and 90 % of the readings written, and how long the run went on after the last one"
                + " (the stock sink's count is of records sent, the period sink's of records acknowledged):\n\n"
                + "| contender | first write, s | steady readings/s (10–90 %) | after the last write, s |\n"
                + "|---|---|---|---|\n");
        for (String c : List.of(
                Contenders.OURS, Contenders.STOCK, Contenders.STOCK_PARSE, Contenders.JOB, Contenders.JOB_ROLLUPS)) {
            List<Measurement> runs = rounds(all, c);
            md.append("| ")
                    .append(c)
                    .append(" | ")
                    .append(stats(runs, m -> m.phases().firstWrite()).format("%.2f"))
                    .append(" | ")
                    .append(stats(runs, m -> m.phases().steadyReadingsPerSecond())
                            .format("%,.0f"))
                    .append(" | ")
                    .append(stats(runs, m -> m.phases().afterLastWrite()).format("%.2f"))
                    .append(" |\n");
        }
        List<Double> rollupsVsJob = new ArrayList<>();
        for (int r = 1; r <= rounds; r++) {
            rollupsVsJob.add(find(all, Contenders.JOB_ROLLUPS, r).readingsPerSecond()
                    / find(all, Contenders.JOB, r).readingsPerSecond());
        }
        md.append(String.format(
                Locale.ROOT,
                "%nRollups: full-job-rollups / full-job readings/s, per round: %s; median **%s** (target ≥ 0.9).%n",
                rollupsVsJob.stream()
                        .map(v -> String.format(Locale.ROOT, "%.3f", v))
                        .toList(),
                Stats.of(rollupsVsJob).format("%.3f")));
        md.append("\nRaw loop concurrency sweep (one run each, in-flight requests → readings/s): ");
        List<String> sweep = new ArrayList<>();
        for (Measurement m : all) {
            if (m.run() == 0) {
                sweep.add(m.contender().substring(Contenders.RAW.length() + 1) + " → "
                        + String.format(Locale.ROOT, "%,.0f", m.readingsPerSecond()));
            }
        }
        md.append(String.join(", ", sweep))
                .append("; best: ")
                .append(bestInFlight)
                .append(".\n\n");
        md.append("All runs:\n\n```\n");
        all.forEach(m -> md.append(m).append('\n'));
        md.append("```\n");
        return md.toString();
    }

    private static List<Measurement> rounds(List<Measurement> all, String contender) {
        return all.stream()
                .filter(m -> m.run() > 0 && m.contender().equals(contender))
                .toList();
    }

    private static Measurement find(List<Measurement> all, String contender, int round) {
        return all.stream()
                .filter(m -> m.run() == round && m.contender().equals(contender))
                .findFirst()
                .orElseThrow();
    }

    private static Stats stats(List<Measurement> runs, ToDoubleFunction<Measurement> f) {
        return Stats.of(runs.stream().map(f::applyAsDouble).toList());
    }
}
