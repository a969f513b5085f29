package io.periodtables.bench.freshness;

import static io.periodtables.bench.freshness.FreshnessReport.DEVICES;
import static io.periodtables.bench.freshness.FreshnessReport.FIRE_COUNT;
import static io.periodtables.bench.freshness.FreshnessReport.SINK_SUBTASKS;
import static io.periodtables.bench.freshness.FreshnessReport.fmt0;
import static io.periodtables.bench.freshness.FreshnessReport.ms;
import static io.periodtables.bench.freshness.FreshnessReport.percent;

import io.periodtables.bench.Percentiles;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The second half of RESULTS.md's section 11, where a reading's delay goes: per phase the parts
 * measured while feeding (PutRecords, GetRecords, the trigger's estimated wait, sink write
 * latency, back-pressure, poll spacing, CPU), why a phase was not sustained, the trigger's share
 * of the delay, and the delay budget that walks a reading through each stage.
 * {@link FreshnessReport} writes the first half (the method and the freshness table) and appends
 * this.
 */
final class DelayBreakdown {

    /** AsyncSink flushes a full BatchWriteItem (DynamoDB's limit) at once, else after its buffer time. */
    private static final int BATCH_ITEMS = 25;

    private DelayBreakdown() {}

    /** The section from the "where the time goes" table to its end. */
    static String markdown(List<FreshnessBench.Phase> phases) {
        StringBuilder md = new StringBuilder();
        md.append("Where the time goes, per phase (measured while feeding):\n\n")
                .append("| fire delay | target/s | PutRecords p50 | GetRecords p50 / p90 (calls) | fires/s | readings")
                .append(" per fire | trigger wait, mean (est.) | sink write latency | source back-pressured | busy:")
                .append(" windows and sink | poll spacing p50 / max | CPU % of a core: JVM / kinesalite / dynalite |\n")
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
        md.append("1. *PutRecords* — the clock starts when the call is sent; its round trip is the PutRecords"
                        + " column.\n")
                .append("2. *Source* — each source subtask has one fetcher thread (`PacedShardSplitReader`) that"
                        + " reads its ")
                .append(FreshnessBench.SHARDS / SINK_SUBTASKS)
                .append(" shards in turn with one GetRecords each, a round trip ")
                .append("to kinesalite; a shard that returned records is read again after 200 ms (`CALL_SPACING`),")
                .append(" one that returned none is left alone for 1 s (`EMPTY_SHARD_PAUSE`; Kinesis allows 5")
                .append(" GetRecords/s per shard). A record thus waits up to 200 ms for its shard's next call, and up")
                .append(" to 1 s when its shard had just come back empty. The GetRecords column times the same call")
                .append(" by a second reader of one shard (from LATEST, pausing like the job's reader); on kinesalite")
                .append(" it grows with the put rate (kinesalite is one node process; puts and reads share its one")
                .append(" thread). Real Kinesis answers GetRecords in tens of milliseconds.\n")
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
                .append("fire carries about 1 + (per-device rate × delay) readings. The batch's first reading waits")
                .append(" the whole delay, the rest less (the estimate column). The run with a ")
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
                .append(" ms on average (and fires deliver readings in bursts), so the size limit sends, not the")
                .append(" buffer time; the 1 s matters only below ")
                .append(BATCH_ITEMS * SINK_SUBTASKS)
                .append(" readings/s.\n")
                .append("5. *Write* — the `BatchWriteItem` round trip to dynalite (the sink's `avgSendLatencyMs` ")
                .append("gauge, a moving average; like the task gauges `backPressuredTimeMsPerSecond` of the source")
                .append(" and `busyTimeMsPerSecond` of the task of the windows and the sink writer, averaged over"
                        + " samples"
                        + " every ")
                .append(FreshnessBench.GAUGE_INTERVAL.toMillis())
                .append(" ms while feeding, over subtasks).\n")
                .append("6. *Poll* — the probe finds the item at its next poll: up to one poll spacing late.\n\n")
                .append("Whatever the parts do not explain is queueing for a core on this loaded machine (network")
                .append(" buffers, task mailboxes, GC), which grows with the rate when the job approaches what it can"
                        + " take.\n");
        return md.toString();
    }

    private static String fmt1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
