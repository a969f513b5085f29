package io.periodtables.job;

import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.conf.TableNaming;

import java.time.Instant;

/** The local run's one-line status, built from live metrics of the MiniCluster. */
final class StatusLine {
    private final TableNaming naming;
    private long lastCount;
    private long lastNanos = System.nanoTime();

    StatusLine(PeriodTablesConfig config) {
        this.naming = config.naming();
    }

    String line() {
        long in = LocalStatusReporter.sum("readingsIn");
        long now = System.nanoTime();
        double perSecond = Math.max(0, in - lastCount) * 1e9 / Math.max(1, now - lastNanos);
        lastCount = in;
        lastNanos = now;
        Long watermark = LocalStatusReporter.min(PeriodTablesTopology.WINDOWS_NAME, "currentInputWatermark");
        boolean hasWatermark = watermark != null && watermark > Long.MIN_VALUE && watermark < Long.MAX_VALUE;
        String table = "-";
        String mark = "-";
        if (hasWatermark) {
            Instant w = Instant.ofEpochMilli(watermark);
            mark = w.toString();
            try {
                table = naming.periodTableOf(w);
            } catch (IllegalArgumentException e) {
                table = "?";
            }
        }
        return String.format("%,9.0f readings/s | in %,d | written %,d | watermark %s | current table %s"
                        + " | tables created %d | late %,d | rejected %,d",
                perSecond, in, LocalStatusReporter.sum(PeriodTablesTopology.WRITTEN_METRIC), mark, table,
                LocalStatusReporter.sum(PeriodTablesTopology.TABLES_CREATED_METRIC),
                LocalStatusReporter.sum("readingsLate"),
                LocalStatusReporter.sum("readingsRejected"));
    }
}
