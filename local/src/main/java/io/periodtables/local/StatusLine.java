package io.periodtables.local;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.core.period.TableNaming;
import io.periodtables.job.PeriodTablesTopology;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The local run's one-line status, built from live metrics of the MiniCluster. "backpressure"
 * is the share of the last second the source spent blocked because the operators after it
 * (in the end DynamoDB) did not take its output: above a few percent the machine does not absorb
 * the configured rate, and the source slows down instead of building a backlog. (Flink's own
 * {@code backPressuredTimeMsPerSecond} averages over a minute; this is the last second's share
 * of its accumulated counterpart.)
 */
final class StatusLine {
    /** Task names of the sources (generator and Kinesis) start with this in their metric identifiers. */
    static final String SOURCE_SCOPE = "Source: ";

    private final TableNaming naming;
    private long lastIn;
    private long lastBackPressuredMs;
    private long lastNanos = System.nanoTime();

    StatusLine(PeriodTablesConfig config) {
        this.naming = config.naming();
    }

    /** True once the first reading came in; before that the job is still deploying. */
    boolean started() {
        return lastIn > 0;
    }

    String line() {
        RunCounts counts = RunCounts.now(naming);
        long now = System.nanoTime();
        double elapsedMs = Math.max(1, now - lastNanos) / 1e6;
        double perSecond = Math.max(0, counts.in() - lastIn) * 1000 / elapsedMs;
        long[] backPressured = LocalStatusReporter.sumAndCount(SOURCE_SCOPE, "accumulateBackPressuredTimeMs");
        String backpressure = backPressured[1] == 0
                ? "-"
                : Math.round(Math.min(
                                100,
                                Math.max(
                                        0,
                                        100.0
                                                * (backPressured[0] - lastBackPressuredMs)
                                                / (backPressured[1] * elapsedMs))))
                        + "%";
        lastIn = counts.in();
        lastBackPressuredMs = backPressured[0];
        lastNanos = now;
        Long watermark = LocalStatusReporter.min(PeriodTablesTopology.WINDOWS_NAME, "currentInputWatermark");
        String mark = "-";
        String table = "-";
        if (watermark != null && watermark > Long.MIN_VALUE && watermark < Long.MAX_VALUE) {
            Instant w = Instant.ofEpochMilli(watermark);
            mark = w.truncatedTo(ChronoUnit.SECONDS).toString();
            try {
                table = naming.periodTableOf(w);
            } catch (IllegalArgumentException e) {
                table = "?";
            }
        }
        Long provisioned = LocalStatusReporter.min("", UserMetrics.OPEN_TABLE_PROVISIONED_WCU);
        Long used = LocalStatusReporter.min("", UserMetrics.OPEN_TABLE_WRITE_UNITS);
        String wcu = provisioned == null || provisioned < 0
                ? "-"
                : (provisioned == 0 ? "on-demand" : String.format("%,d", provisioned)) + " provisioned, "
                        + String.format("%,d", used == null ? 0 : used) + " used at peak";
        return String.format(
                "%,7.0f readings/s | in %,d | written %,d | late %,d | rejected %,d | in flight %,d"
                        + " | backpressure %s | watermark %s | table %s (WCU %s) | tables created %d",
                perSecond,
                counts.in(),
                counts.written(),
                counts.late(),
                counts.rejected(),
                counts.inFlight(),
                backpressure,
                mark,
                table,
                wcu,
                counts.tablesCreated());
    }
}
