package io.periodtables.bench.capacity;

import io.periodtables.bench.Contenders;
import io.periodtables.bench.JfrSummary;
import io.periodtables.bench.Stats;
import io.periodtables.bench.WarmUp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The markdown section of {@link CapacityBench}: the table per contender, the rollups' ratio per round, the runs, the
 * profiles.
 */
final class CapacityReport {

    private CapacityReport() {}

    static String markdown(
            int n, int rounds, int warmUpRounds, List<CapacityRun> runs, String load, List<Path> profiles)
            throws Exception {
        StringBuilder md = new StringBuilder("## 2. Pipeline capacity with an instant backend\n\n");
        md.append(String.format(
                Locale.ROOT,
                "N = %,d readings per run, %,d devices over %d event-minutes (hourly periods), 4 shards,"
                        + " parallelism 2, checkpoints every 10 s, heap state backend; the full job with"
                        + " `latest.enabled=true`, full-job-rollups the same with `rollups.every=%s`; DynamoDB"
                        + " replaced by an in-process Netty responder on 127.0.0.1 (BatchWriteItem →"
                        + " `{\"UnprocessedItems\":{}}`, every PutItem but the writers table's → `{}`, the writers"
                        + " table's conditional PutItem and Query kept as DynamoDB would); %d rounds after %d warm-up"
                        + " rounds (%s); load average"
                        + " at start %s. *Per core* = readings ÷ CPU-seconds of the job's JVM, the responder's"
                        + " event-loop thread excluded; *compiled* also without the JIT compiler threads' CPU (a"
                        + " warm-up cost that a job running for hours pays once).%n%n",
                n,
                CapacityBench.DEVICES,
                CapacityBench.SPAN.toMinutes(),
                Contenders.ROLLUPS_EVERY,
                rounds,
                warmUpRounds,
                WarmUp.rule(),
                load));
        md.append("| pipeline | readings/s median (min–max) | readings per core-second median (min–max) | same,"
                + " compiled | target |\n|---|---|---|---|---|\n");
        for (String what : CapacityBench.CONTENDERS) {
            List<CapacityRun> mine =
                    runs.stream().filter(r -> r.what().equals(what)).toList();
            if (mine.isEmpty()) {
                continue;
            }
            md.append("| ")
                    .append(what)
                    .append(" | ")
                    .append(Stats.of(mine.stream().map(CapacityRun::perSecond).toList())
                            .format("%,.0f"))
                    .append(" | ")
                    .append(Stats.of(mine.stream().map(CapacityRun::perCore).toList())
                            .format("%,.0f"))
                    .append(" | ")
                    .append(Stats.of(mine.stream()
                                    .map(CapacityRun::perCoreCompiled)
                                    .toList())
                            .format("%,.0f"))
                    .append(
                            what.equals(CapacityBench.FULL_JOB)
                                    ? " | ≥ 60,000 (issues 18, 39) |\n"
                                    : what.equals(CapacityBench.ROLLUPS)
                                            ? " | ≥ 0.85× full-job (issue 39) |\n"
                                            : what.equals("raw-sdk") ? " | (ceiling: SDK alone) |\n" : " | |\n");
        }
        List<Double> ratios = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            int r = round;
            runs.stream()
                    .filter(x -> x.round() == r && x.what().equals(CapacityBench.ROLLUPS))
                    .findFirst()
                    .ifPresent(rollups -> runs.stream()
                            .filter(x -> x.round() == r && x.what().equals(CapacityBench.FULL_JOB))
                            .findFirst()
                            .ifPresent(job -> ratios.add(rollups.perCore() / job.perCore())));
        }
        if (!ratios.isEmpty()) {
            md.append(String.format(
                    Locale.ROOT,
                    "%nfull-job-rollups / full-job readings per core-second, per round (same round, back to back):"
                            + " %s; median **%s** (target ≥ 0.85).%n",
                    ratios.stream()
                            .map(x -> String.format(Locale.ROOT, "%.3f", x))
                            .toList(),
                    Stats.of(ratios).format("%.3f")));
        }
        md.append("\n```\n");
        runs.forEach(r -> md.append(r).append('\n'));
        md.append("```\n");
        for (Path jfr : profiles) {
            String what = jfr.getFileName().toString().replace("capacity-", "").replace(".jfr", "");
            md.append("\n### CPU profile of one more ")
                    .append(what)
                    .append(" run\n\n")
                    .append(JfrSummary.markdown(jfr, 30));
        }
        return md.toString();
    }
}
