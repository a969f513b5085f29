package io.periodtables.bench;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.TableKeys;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** Section 11 of RESULTS.md: the freshness table per phase and where the delay goes. */
final class FreshnessReport {

    private static final int DEVICES = Integer.parseInt(ConfigKeys.GENERATOR_DEVICES.defaultValue());
    private static final int FIRE_COUNT = Integer.parseInt(ConfigKeys.WINDOW_FIRE_COUNT.defaultValue());
    private static final int SINK_SUBTASKS = BenchCluster.PARALLELISM;
    /** AsyncSink flushes a full BatchWriteItem (DynamoDB's limit) at once, else after its buffer time. */
    private static final int BATCH_ITEMS = 25;

    private FreshnessReport() {}

    static String section(FreshnessBench.Options options, String load, List<FreshnessBench.Phase> phases) {
        StringBuilder md = new StringBuilder("## 11. Freshness\n\n");
        md.append("Command: `")
                .append(options.command())
                .append("`. Load average at start **")
                .append(load)
                .append(
                        "** on 2 cores (other sessions were building; every delay below includes waiting for a core).\n\n");
        md.append("Kinesalite (")
                .append(FreshnessBench.SHARDS)
                .append(" shards), ")
                .append(
                        "dynalite (a node process of its own), the production topology (`PeriodTablesTopology.build`, source `kinesis` ")
                .append("from TRIM_HORIZON, default window and sink settings: `window.fire-count` ")
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
                .append(
                        "carrying a reading is sent to the start of the first strongly consistent `BatchGetItem` that finds ")
                .append("its item (key from `WriteSharding`, table from `TableNaming`), for ")
                .append(fmt0(FreshnessBench.SAMPLES_PER_SECOND))
                .append(" sampled readings per second, polled every ")
                .append(FreshnessBench.POLL.toMillis())
                .append(" ms (fixed delay: the resolution is the measured poll ")
                .append("spacing below). Each phase is drained (every sample found, or none for ")
                .append(FreshnessBench.PATIENCE.toSeconds())
                .append(" s) before the next.\n\n");

        md.append(
                        "| fire delay | target/s | put/s | written/s | backlog at end | sustained | samples | p50 | p90 | p99 | max | never found |\n")
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
        md.append(
                        "*Sustained*: less than one second of input unwritten when feeding stopped (backlog = put − written, ")
                .append("cumulative) and the feeder kept ≥ 95 % of the target rate; written/s counts the sink's ")
                .append("`recordsWritten` over the phase.\n\n");

        md.append("Where the time goes, per phase (measured while feeding):\n\n")
                .append(
                        "| fire delay | target/s | PutRecords p50 | GetRecords p50 / p90 (calls) | fires/s | readings per fire ")
                .append(
                        "| trigger wait, mean (est.) | sink write latency | source back-pressured | busy: windows and sink ")
                .append("| poll spacing p50 / max | CPU % of a core: JVM / kinesalite / dynalite |\n")
                .append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (FreshnessBench.Phase p : phases) {
            double seconds = p.fed().seconds();
            double perFire = p.fires() == 0 ? Double.NaN : (double) p.firedReadings() / p.fires();
            Percentiles spacing = Percentiles.of(p.found().pollSpacings());
            Percentiles getRecords = Percentiles.of(p.getRecordsNanos());
            md.append("| ")
                    .append(p.fireDelay().toMillis())
                    .append(" ms | ")
                    .append(fmt0(p.targetRate()))
                    .append(" | ")
                    .append(ms(Percentiles.of(p.fed().putNanos()).p50()))
                    .append(" | ")
                    .append(ms(getRecords.p50()))
                    .append(" / ")
                    .append(ms(getRecords.p90()))
                    .append(" (")
                    .append(getRecords.n())
                    .append(") | ")
                    .append(fmt0(p.fires() / seconds))
                    .append(" | ")
                    .append(fmt1(perFire))
                    .append(" | ")
                    .append(fmt0(triggerWaitMillis(p.fireDelay(), perFire)))
                    .append(" ms | ")
                    .append(fmt0(p.gauges().get(FreshnessBench.SINK_LATENCY)))
                    .append(" ms | ")
                    .append(fmt0(p.gauges().get(FreshnessBench.SOURCE_BACKPRESSURE)))
                    .append(" ms/s | ")
                    .append(fmt0(p.gauges().get(FreshnessBench.WINDOWS_BUSY)))
                    .append(" ms/s | ")
                    .append(ms(spacing.p50()))
                    .append(" / ")
                    .append(ms(spacing.max()))
                    .append(" | ")
                    .append(fmt0(percent(p.cpu().jvm(), p)))
                    .append(" / ")
                    .append(fmt0(percent(p.cpu().kinesalite(), p)))
                    .append(" / ")
                    .append(fmt0(percent(p.cpu().dynamoDb(), p)))
                    .append(" |\n");
        }
        for (FreshnessBench.Phase p : phases) {
            if (!p.sustained()) {
                md.append('\n').append(verdict(p));
            }
        }
        md.append('\n').append(triggerShare(phases)).append(budget(phases));
        return md.toString();
    }

    /** The default delay's phase against the short delay's at the same rate: what the trigger costs. */
    static String triggerShare(List<FreshnessBench.Phase> phases) {
        FreshnessBench.Phase base = phases.get(0);
        FreshnessBench.Phase fast = phases.get(phases.size() - 1);
        if (fast.fireDelay().equals(base.fireDelay()) || fast.targetRate() != base.targetRate()) {
            return "";
        }
        double baseWait = triggerWaitMillis(base.fireDelay(), (double) base.firedReadings() / base.fires());
        double fastWait = triggerWaitMillis(fast.fireDelay(), (double) fast.firedReadings() / fast.fires());
        return "**The trigger's share** at " + fmt0(base.targetRate()) + "/s: p50 "
                + ms(Percentiles.of(base.found().delays()).p50())
                + " with `window.fire-delay` " + base.fireDelay().toMillis() + " ms, "
                + ms(Percentiles.of(fast.found().delays()).p50())
                + " with " + fast.fireDelay().toMillis() + " ms. The estimated mean trigger wait differs by "
                + fmt0(baseWait - fastWait) + " ms, the p50s by "
                + ms(Percentiles.of(base.found().delays()).p50()
                        - Percentiles.of(fast.found().delays()).p50())
                + "; whatever is not the trigger comes from the other parts (GetRecords, write latency and queueing "
                + "differ between the two jobs at this load: see the table).\n\n";
    }

    /** Why a phase was not sustained, as far as the task gauges tell. */
    static String verdict(FreshnessBench.Phase p) {
        double backPressured = p.gauges().get(FreshnessBench.SOURCE_BACKPRESSURE);
        String where = backPressured >= 500
                ? "the source was back-pressured " + fmt0(backPressured)
                        + " ms/s: the windows and the sink (their task busy "
                        + fmt0(p.gauges().get(FreshnessBench.WINDOWS_BUSY)) + " ms/s, write latency "
                        + fmt0(p.gauges().get(FreshnessBench.SINK_LATENCY)) + " ms) set the pace"
                : "the source was back-pressured only " + fmt0(backPressured) + " ms/s, so the backlog built at the "
                        + "source itself: GetRecords from kinesalite took "
                        + ms(Percentiles.of(p.getRecordsNanos()).p50())
                        + " per call (p50; kinesalite at "
                        + fmt0(percent(p.cpu().kinesalite(), p))
                        + " % of a core, taking the feeder's puts too), on a machine short of cores";
        return "**Not sustained at " + fmt0(p.targetRate()) + "/s:** put " + fmt0(p.putRate()) + "/s, written "
                + fmt0(p.writtenRate()) + "/s, " + String.format(Locale.ROOT, "%,d", p.backlog())
                + " readings behind when feeding stopped, so the delay grew during the phase; " + where + ".\n";
    }

    /**
     * Mean wait in a trigger that fires on its delay: the batch's first reading waits the whole
     * delay, the other {@code k − 1} arrive evenly within it and wait half of it on average.
     */
    static double triggerWaitMillis(Duration delay, double readingsPerFire) {
        return delay.toMillis() * (1 + (readingsPerFire - 1) / 2) / readingsPerFire;
    }

    private static String budget(List<FreshnessBench.Phase> phases) {
        FreshnessBench.Phase first = phases.get(0);
        double perDevice = first.targetRate() / DEVICES;
        StringBuilder md = new StringBuilder("**The delay budget**, in the order a reading meets it:\n\n");
        md.append(
                        "1. *PutRecords* — the clock starts when the call is sent; its round trip is the PutRecords column.\n")
                .append(
                        "2. *Source* — each source subtask has one fetcher thread (`PacedShardSplitReader`) that reads its ")
                .append(FreshnessBench.SHARDS / SINK_SUBTASKS)
                .append(" shards in turn with one GetRecords each, a round trip ")
                .append(
                        "to kinesalite; a shard that returned records is read again at its next turn, one that returned none ")
                .append(
                        "is left alone for 250 ms (`EMPTY_SHARD_PAUSE`; Kinesis allows 5 GetRecords/s per shard). A record ")
                .append(
                        "thus waits for the rest of its shard's turn, and up to 250 ms more when its shard had just come back ")
                .append(
                        "empty. The GetRecords column times the same call by a second reader of one shard (from LATEST, ")
                .append("pausing like the job's reader); on kinesalite it grows ")
                .append(
                        "with the put rate (kinesalite is one node process; puts and reads share its one thread). Real ")
                .append("Kinesis answers GetRecords in tens of milliseconds.\n")
                .append("3. *Trigger* — `SmallBatchTrigger` fires a device's window after `window.fire-count` = ")
                .append(FIRE_COUNT)
                .append(" readings or `window.fire-delay` after its first buffered one. With ")
                .append(DEVICES)
                .append(" devices, ")
                .append(fmt0(first.targetRate()))
                .append(" readings/s give a device ")
                .append(fmt0(perDevice))
                .append("/s, so ")
                .append(FIRE_COUNT)
                .append(" readings take ")
                .append(fmt1(FIRE_COUNT / perDevice))
                .append(" s: the delay always fires first at these rates, and a ")
                .append(
                        "fire carries about 1 + (per-device rate × delay) readings. The batch's first reading waits the ")
                .append("whole delay, the rest less (the estimate column). The run with a ")
                .append(FreshnessBench.SHORT_FIRE_DELAY.toMillis())
                .append(" ms delay shows the trigger's share directly: ")
                .append("compare its p50 with the default's at the same rate.\n")
                .append("4. *Sink buffer* — `PeriodTableSink` (AsyncSink) sends a `BatchWriteItem` as soon as ")
                .append(BATCH_ITEMS)
                .append(" items are buffered, else after its buffer time (1 s, the builder's default ")
                .append("`maxTimeInBuffer`). With ")
                .append(SINK_SUBTASKS)
                .append(" sink subtasks, ")
                .append(fmt0(first.targetRate()))
                .append(" readings/s fill ")
                .append(BATCH_ITEMS)
                .append(" items in ")
                .append(fmt0(1000.0 * BATCH_ITEMS * SINK_SUBTASKS / first.targetRate()))
                .append(
                        " ms on average (and fires deliver readings in bursts), so the size limit sends, not the buffer time; ")
                .append("the 1 s matters only below ")
                .append(BATCH_ITEMS * SINK_SUBTASKS)
                .append(" readings/s.\n")
                .append("5. *Write* — the `BatchWriteItem` round trip to dynalite (the sink's `avgSendLatencyMs` ")
                .append(
                        "gauge, a moving average; like the task gauges `backPressuredTimeMsPerSecond` of the source and ")
                .append(
                        "`busyTimeMsPerSecond` of the task of the windows and the sink writer, averaged over samples every ")
                .append(FreshnessBench.GAUGE_INTERVAL.toMillis())
                .append(" ms while feeding, over subtasks).\n")
                .append("6. *Poll* — the probe finds the item at its next poll: up to one poll spacing late.\n\n")
                .append(
                        "Whatever the parts do not explain is queueing for a core on this loaded machine (network buffers, ")
                .append("task mailboxes, GC), which grows with the rate when the job approaches what it can take.\n");
        return md.toString();
    }

    /** One log line for a phase. */
    static String line(FreshnessBench.Phase p) {
        Percentiles d = Percentiles.of(p.found().delays());
        return String.format(
                Locale.ROOT,
                "delay %d ms, target %.0f/s: put %.0f/s (PutRecords p50 %s), written %.0f/s, "
                        + "backlog %d; p50 %s p90 %s p99 %s max %s of %d samples, %d never found; %d fires, %.1f readings "
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

    private static double percent(double cpuSeconds, FreshnessBench.Phase p) {
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

    private static String fmt0(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    private static String fmt1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
