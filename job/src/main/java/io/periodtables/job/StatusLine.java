package io.periodtables.job;

import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.conf.TableNaming;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The local run's one-line status, built from live metrics of the MiniCluster. "backpressure"
 * is the share of the last second the source spent blocked because the operators after it
 * (in the end DynamoDB) did not take its output: above a few percent the machine does not absorb
 * the configured rate, and the source slows down instead of building a backlog.
 */
final class StatusLine {
    /** Task names of the sources (generator and Kinesis) start with this in their metric identifiers. */
    private static final String SOURCE_SCOPE = "Source: ";

    private final TableNaming naming;
    private long lastIn;
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
        double perSecond = Math.max(0, counts.in() - lastIn) * 1e9 / Math.max(1, now - lastNanos);
        lastIn = counts.in();
        lastNanos = now;
        Long backPressured = LocalStatusReporter.max(SOURCE_SCOPE, "backPressuredTimeMsPerSecond");
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
        return String.format("%,7.0f readings/s | in %,d | written %,d | late %,d | rejected %,d | in flight %,d"
                        + " | backpressure %s | watermark %s | table %s | tables created %d",
                perSecond, counts.in(), counts.written(), counts.late(), counts.rejected(), counts.inFlight(),
                backPressured == null ? "-" : Math.min(100, backPressured / 10) + "%", mark, table,
                counts.tablesCreated());
    }
}
