package io.periodtables.bench.freshness;

import io.periodtables.bench.BenchCluster;
import io.periodtables.bench.Percentiles;
import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.TableKeys;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Section 11 of RESULTS.md: how freshness was measured and the freshness table per phase, then
 * where the delay goes ({@link DelayBreakdown}); and the log line of a phase.
 */
final class FreshnessReport {

    static final int DEVICES = Integer.parseInt(ConfigKeys.GENERATOR_DEVICES.defaultValue());
    static final int FIRE_COUNT = Integer.parseInt(ConfigKeys.WINDOW_FIRE_COUNT.defaultValue());
    static final int SINK_SUBTASKS = BenchCluster.PARALLELISM;

    private FreshnessReport() {}

    static String section(FreshnessBench.Options options, String load, List<FreshnessBench.Phase> phases) {
        StringBuilder md = new StringBuilder("## 11. Freshness\n\n");
        md.append("Command: `")
                .append(options.command())
                .append("`. Load average at start **")
                .append(load)
                .append("** on 2 cores (other sessions were building; every delay below includes waiting for a"
                        + " core).\n\n");
        md.append("Kinesalite (")
                .append(FreshnessBench.SHARDS)
                .append(" shards), ")
                .append("dynalite (a node process of its own), the production topology (`PeriodTablesTopology.build`,")
                .append(" source `kinesis` from TRIM_HORIZON, default window and sink settings: `window.fire-count` ")
                .append(FIRE_COUNT)
                .append(", `tables.period` ")
                .append(TableKeys.TABLES_PERIOD.defaultValue())
                .append(", `tables.shards` ")
                .append(TableKeys.TABLES_SHARDS.defaultValue())
                .append(") on a loopback MiniCluster at parallelism ")
                .append(SINK_SUBTASKS)
                .append(", checkpoints every ")
                .append(ConfigKeys.CHECKPOINT_INTERVAL
                        .parse(ConfigKeys.CHECKPOINT_INTERVAL.defaultValue())
                        .toSeconds())
                .append(" s")
                .append(". A feeder puts the local run's fleet (")
                .append(DEVICES)
                .append(" devices, the seed reading) with `PutRecords` every ")
                .append(FreshnessFeeder.TICK.toMillis())
                .append(" ms. One job per `window.fire-delay`: ")
                .append(sec(options.warmUp()))
                .append(" s of warm-up at the first rate (job start, table creation; not reported), then ")
                .append(sec(options.phase()))
                .append(" s per rate. **Freshness** = from the moment the `PutRecords` call ")
                .append("carrying a reading is sent to the start of the first strongly consistent `BatchGetItem` that")
                .append(" finds its item (key from `WriteSharding`, table from `TableNaming`), for ")
                .append(fmt0(FreshnessBench.SAMPLES_PER_SECOND))
                .append(" sampled readings per second, polled every ")
                .append(FreshnessBench.POLL.toMillis())
                .append(" ms (fixed delay: the resolution is the measured poll ")
                .append("spacing below). Each phase is drained (every sample found, or none for ")
                .append(FreshnessBench.PATIENCE.toSeconds())
                .append(" s) before the next.\n\n");

        md.append("| fire delay | target/s | put/s | written/s | backlog at end | sustained | samples | p50 |"
                        + " p90 | p99 | max | never found |\n")
                .append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (FreshnessBench.Phase p : phases) {
            Percentiles d = Percentiles.of(p.found().delays());
            md.append("| ")
                    .append(p.fireDelay().toMillis())
                    .append(" ms | ")
                    .append(fmt0(p.targetRate()))
                    .append(" | ")
                    .append(fmt0(p.putRate()))
                    .append(" | ")
                    .append(fmt0(p.writtenRate()))
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%,d", p.backlog()))
                    .append(" | ")
                    .append(p.sustained() ? "yes" : "**no**")
                    .append(" | ")
                    .append(d.n())
                    .append(" | ")
                    .append(ms(d.p50()))
                    .append(" | ")
                    .append(ms(d.p90()))
                    .append(" | ")
                    .append(ms(d.p99()))
                    .append(" | ")
                    .append(ms(d.max()))
                    .append(" | ")
                    .append(p.found().neverFound() == 0 ? "0" : "**" + p.found().neverFound() + "**")
                    .append(" |\n");
        }
        int lost = phases.stream().mapToInt(p -> p.found().neverFound()).sum();
        md.append('\n')
                .append(
                        lost == 0
                                ? "Every sampled reading was found in its period table.\n"
                                : "**" + lost + " sampled readings were never found (no sample found for "
                                        + FreshnessBench.PATIENCE.toSeconds()
                                        + " s): lost or stuck. These numbers do not describe a healthy job.**\n");
        md.append("*Sustained*: less than one second of input unwritten when feeding stopped (backlog = put −")
                .append(" written, cumulative) and the feeder kept ≥ 95 % of the target rate; written/s counts the")
                .append(" sink's `recordsWritten` over the phase.\n\n");

        md.append(DelayBreakdown.markdown(phases));
        return md.toString();
    }

    /** One log line for a phase. */
    static String line(FreshnessBench.Phase p) {
        Percentiles d = Percentiles.of(p.found().delays());
        return String.format(
                Locale.ROOT,
                "delay %d ms, target %.0f/s: put %.0f/s (PutRecords p50 %s), written %.0f/s, "
                        + "backlog %d; p50 %s p90 %s p99 %s max %s of %d samples, %d never found; %d fires, %.1f"
                        + " readings "
                        + "per fire; CPU %% JVM %.0f, kinesalite %.0f, dynalite %.0f; %s; GetRecords p50 %s of %d",
                p.fireDelay().toMillis(),
                p.targetRate(),
                p.putRate(),
                ms(Percentiles.of(p.fed().putNanos()).p50()),
                p.writtenRate(),
                p.backlog(),
                ms(d.p50()),
                ms(d.p90()),
                ms(d.p99()),
                ms(d.max()),
                d.n(),
                p.found().neverFound(),
                p.fires(),
                p.fires() == 0 ? Double.NaN : (double) p.firedReadings() / p.fires(),
                percent(p.cpu().jvm(), p),
                percent(p.cpu().kinesalite(), p),
                percent(p.cpu().dynamoDb(), p),
                p.gauges(),
                ms(Percentiles.of(p.getRecordsNanos()).p50()),
                p.getRecordsNanos().size());
    }

    static double percent(double cpuSeconds, FreshnessBench.Phase p) {
        return 100 * cpuSeconds / p.fed().seconds();
    }

    static String ms(long nanos) {
        double millis = nanos / 1e6;
        return millis >= 10_000
                ? String.format(Locale.ROOT, "%.1f s", millis / 1000)
                : String.format(Locale.ROOT, "%.0f ms", millis);
    }

    private static String sec(Duration d) {
        return Long.toString(d.toSeconds());
    }

    static String fmt0(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }
}
