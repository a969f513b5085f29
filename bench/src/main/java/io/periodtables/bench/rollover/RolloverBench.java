package io.periodtables.bench.rollover;

import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.BenchConfigs;
import io.periodtables.bench.BenchMetrics;
import io.periodtables.bench.Contenders;
import io.periodtables.bench.MachineFacts;
import io.periodtables.bench.Stats;
import io.periodtables.bench.SvgChart;
import io.periodtables.bench.Tables;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.emulators.Dynalite;
import io.periodtables.job.PeriodTablesTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Benchmark 3: rollovers under load. The full job writes hourly tables in dynalite (a node process)
 * from a generator throttled to {@value #RATE} readings/s whose event time runs {@value #SPEEDUP}×
 * faster than the wall clock, so an hour passes every 12 s and 6 boundaries pass in the run. The
 * sink's counters are sampled every 100 ms; throughput in 1-second buckets around each
 * boundary (first write to the next table) is compared with the run's median. Also counts the
 * sink's lazy table creations ({@code missingTableFallbacks}), which must stay 0 when the
 * rotation prebuilds every table in time.
 */
public final class RolloverBench {

    static final int RATE = 1000;
    static final int SPEEDUP = 300;
    static final int SECONDS = 80;

    private RolloverBench() {}

    public static String run(Path benchDir) throws Exception {
        String load = MachineFacts.loadAverage();
        // boundaries at 12, 24, ... 72 s, after the start-up catch-up; all of it hours in the past
        Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(9));
        long count = (long) RATE * SECONDS;
        List<Sampler.Sample> samples;
        Map<String, Long> firstWrites;
        long written;
        try (Dynalite dynamoDb = Tables.dynamoDb();
                DynamoDbClient admin = dynamoDb.syncClient();
                BenchCluster cluster = new BenchCluster()) {
            Map<String, String> keys =
                    BenchConfigs.fleet("roll", dynamoDb.endpoint(), count, 100, start, Duration.ofHours(1));
            keys.put("generator.rate", Integer.toString(RATE));
            keys.put("generator.speedup", Integer.toString(SPEEDUP));
            PeriodTablesConfig config = BenchConfigs.load(keys);
            BenchMetrics.reset();
            JobID job = cluster.submit(BenchCluster.graphOf(
                    Contenders.CHECKPOINT_MILLIS, env -> PeriodTablesTopology.build(env, config, Clock.systemUTC())));
            try (Sampler sampler = new Sampler(100)) {
                cluster.await(job, 10);
                Thread.sleep(200);
                samples = sampler.samples();
                firstWrites = sampler.firstWrites();
            }
            written = BenchMetrics.sum(UserMetrics.RECORDS_WRITTEN);
            long stored = Tables.countWithPrefix(admin, "roll");
            if (stored != count || written != count) {
                throw new IllegalStateException(
                        "rollover run wrote " + written + " and stored " + stored + ", expected " + count);
            }
        }
        return analyse(samples, firstWrites, count, load, benchDir);
    }

    private static String analyse(
            List<Sampler.Sample> samples, Map<String, Long> firstWrites, long count, String load, Path benchDir)
            throws Exception {
        long t0 = samples.stream()
                .filter(s -> s.written() > 0)
                .findFirst()
                .orElseThrow()
                .atMillis();
        long tEnd = samples.stream()
                .filter(s -> s.written() >= count)
                .findFirst()
                .orElseThrow()
                .atMillis();
        int seconds = (int) ((tEnd - t0) / 1000);
        double[] perSecond = new double[seconds];
        for (int i = 0; i < seconds; i++) {
            perSecond[i] = writtenAt(samples, t0 + (i + 1) * 1000L) - writtenAt(samples, t0 + i * 1000L);
        }
        // steady state: without the first 2 seconds (start-up) and the last one
        double median = Stats.of(Arrays.stream(perSecond, 2, Math.max(3, seconds - 1))
                        .boxed()
                        .toList())
                .median();
        List<Double> rollovers = new ArrayList<>();
        List<String> tables = new ArrayList<>(firstWrites.keySet());
        StringBuilder rows = new StringBuilder();
        List<Double> dips = new ArrayList<>();
        List<Double> meanDips = new ArrayList<>();
        for (int k = 1; k < tables.size(); k++) {
            double at = (firstWrites.get(tables.get(k)) - t0) / 1000.0;
            if (at < 2 || at > seconds - 2) {
                continue;
            }
            rollovers.add(at);
            int b = (int) Math.floor(at);
            StringBuilder around = new StringBuilder();
            for (int i = Math.max(0, b - 3); i <= Math.min(seconds - 1, b + 3); i++) {
                around.append(String.format(Locale.ROOT, i == b ? "**%,.0f** " : "%,.0f ", perSecond[i]));
            }
            double dip = dipAt(perSecond, b, median);
            dips.add(dip);
            double mean = 0;
            int buckets = 0;
            for (int i = Math.max(0, b - 1); i <= Math.min(seconds - 1, b + 1); i++) {
                mean += perSecond[i];
                buckets++;
            }
            double meanDip = Math.max(0, 1 - mean / buckets / median);
            meanDips.add(meanDip);
            rows.append(String.format(
                    Locale.ROOT,
                    "| %s | %.1f | %s| %.1f %% | %.1f %% |%n",
                    tables.get(k),
                    at,
                    around,
                    100 * dip,
                    100 * meanDip));
        }
        // the same statistic where no boundary is near: how much 1-second buckets wobble anyway
        List<Double> noise = new ArrayList<>();
        for (int p = 3; p < seconds - 3; p++) {
            final int at = p;
            if (rollovers.stream().noneMatch(r -> Math.abs(r - at) < 4)) {
                noise.add(dipAt(perSecond, p, median));
            }
        }
        Stats noiseStats = Stats.of(noise);
        long fallbacks = samples.get(samples.size() - 1).fallbacks();
        String svgName = "rollover.svg";
        Files.writeString(
                benchDir.resolve(svgName),
                SvgChart.render(
                        "Full job into dynalite: readings written per second across hourly rollovers",
                        perSecond,
                        rollovers,
                        median));
        StringBuilder md = new StringBuilder("## 3. Rollover\n\n");
        md.append(String.format(
                Locale.ROOT,
                "Full job (generator → parse → watermarks → period windows → period sink,"
                        + " rotation) into dynalite (a node process of its own); hourly tables, 4 shards, parallelism"
                        + " 2, 100 devices;"
                        + " the generator is throttled to %,d readings/s and its event time runs %d× the wall clock"
                        + " (an hour"
                        + " every %d s), %,d readings; rotation lead 15 min (= %.0f s), allowed lateness 5 min. Load"
                        + " average at start %s.%n%n",
                RATE,
                SPEEDUP,
                3600 / SPEEDUP,
                count,
                900.0 / SPEEDUP,
                load));
        md.append("![readings per second across rollovers](").append(svgName).append(")\n\n");
        md.append(String.format(
                Locale.ROOT,
                "Steady median %,.0f readings/s. Dip = 1 − (lowest 1-second bucket from one"
                        + " second before to two seconds after the boundary) / median; 3-s dip = 1 − (mean of the"
                        + " boundary second and its neighbours) / median; target < 5 %%.%n%n",
                median));
        md.append("| new table | first write (s) | buckets −3 s … +3 s (boundary second in bold) | dip | 3-s dip |\n"
                + "|---|---|---|---|---|\n");
        md.append(rows);
        md.append(String.format(
                Locale.ROOT,
                "%nRollovers: %d; largest dip %.1f %%, median dip %.1f %%; largest 3-s dip"
                        + " %.1f %%. Lazy table"
                        + " creations by the sink (`missingTableFallbacks`): **%d** over the whole run%s.%n%n",
                rollovers.size(),
                100 * dips.stream().mapToDouble(d -> d).max().orElse(0),
                100 * Stats.of(dips).median(),
                100 * meanDips.stream().mapToDouble(d -> d).max().orElse(0),
                fallbacks,
                fallbacksNote(samples, t0)));
        md.append(String.format(
                Locale.ROOT,
                "Noise floor: the same statistic at the %d positions at least 4 s away from"
                        + " any boundary: median %.1f %%, max %.1f %%. A rollover costs nothing measurable when its"
                        + " dip is within that range.%n%n",
                noiseStats.n(),
                100 * noiseStats.median(),
                100 * noiseStats.max()));
        md.append("Readings written per second, whole run: `");
        for (double v : perSecond) {
            md.append(String.format(Locale.ROOT, "%.0f ", v));
        }
        md.append("`\n");
        return md.toString();
    }

    /** 1 − (lowest bucket from one second before to two seconds after {@code b}) / median, at least 0. */
    private static double dipAt(double[] perSecond, int b, double median) {
        double worst = Double.MAX_VALUE;
        for (int i = Math.max(0, b - 1); i <= Math.min(perSecond.length - 1, b + 2); i++) {
            worst = Math.min(worst, perSecond[i]);
        }
        return Math.max(0, 1 - worst / median);
    }

    private static String fallbacksNote(List<Sampler.Sample> samples, long t0) {
        long atStart = samples.stream()
                .filter(s -> s.atMillis() <= t0 + 2000)
                .mapToLong(Sampler.Sample::fallbacks)
                .max()
                .orElse(0);
        long total = samples.get(samples.size() - 1).fallbacks();
        return " (" + atStart + " in the first 2 s of writing, " + (total - atStart) + " at rollovers)";
    }

    /** Records written at {@code atMillis}, interpolated linearly between the samples around it. */
    private static double writtenAt(List<Sampler.Sample> samples, long atMillis) {
        Sampler.Sample before = samples.get(0);
        for (Sampler.Sample s : samples) {
            if (s.atMillis() >= atMillis) {
                if (s.atMillis() == before.atMillis()) {
                    return s.written();
                }
                double f = (atMillis - before.atMillis()) / (double) (s.atMillis() - before.atMillis());
                return before.written() + f * (s.written() - before.written());
            }
            before = s;
        }
        return before.written();
    }
}
