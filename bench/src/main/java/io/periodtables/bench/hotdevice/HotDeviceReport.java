package io.periodtables.bench.hotdevice;

import io.periodtables.bench.Contenders;
import io.periodtables.bench.scale.ScaleBench;
import io.periodtables.bench.scale.ScaleReport;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.text.TextUtils;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

/**
 * Section 20 of RESULTS.md from {@link HotDeviceBench}'s samples: CPU per reading in each
 * interval, the last minute's against the first, and a chart ({@code bench/hot-device.svg}).
 */
final class HotDeviceReport {
    static final String SECTION = "## 20. A hot device among quiet ones: CPU per reading over time (issue 48)";
    private static final String SVG = "hot-device.svg";
    private static final int W = 900;
    private static final int H = 360;

    /** What one sampling interval cost: readings the rollups counted, CPU seconds, GC millis. */
    record Interval(
            double from,
            double to,
            long readings,
            long hotSubtaskReadings,
            double cpu,
            double jit,
            double hotTask,
            double otherTask,
            double sourceTask,
            long gcMillis,
            long stateBytes) {

        static Interval between(HotDeviceBench.Sample a, HotDeviceBench.Sample b) {
            return new Interval(
                    a.wall(),
                    b.wall(),
                    b.readings() - a.readings(),
                    b.hotSubtaskReadings() - a.hotSubtaskReadings(),
                    b.cpu() - a.cpu(),
                    b.jit() - a.jit(),
                    b.hotTask() - a.hotTask(),
                    b.otherTask() - a.otherTask(),
                    b.sourceTask() - a.sourceTask(),
                    b.gcMillis() - a.gcMillis(),
                    b.stateBytes());
        }

        /** Both intervals together. */
        Interval and(Interval next) {
            return new Interval(
                    from,
                    next.to,
                    readings + next.readings,
                    hotSubtaskReadings + next.hotSubtaskReadings,
                    cpu + next.cpu,
                    jit + next.jit,
                    hotTask + next.hotTask,
                    otherTask + next.otherTask,
                    sourceTask + next.sourceTask,
                    gcMillis + next.gcMillis,
                    next.stateBytes);
        }

        double cpuPerReading() {
            return micros(cpu, readings);
        }

        double hotTaskPerReading() {
            return micros(hotTask, hotSubtaskReadings);
        }

        double otherTaskPerReading() {
            return micros(otherTask, readings - hotSubtaskReadings);
        }

        /**
         * The hot device's own readings' cost on its subtask's thread: that thread's CPU less what
         * the other subtask's thread spent on as many quiet readings as the hot subtask holds
         * (a share {@code quietShare} of the quiet devices), over the hot device's readings.
         */
        double hotDevicePerReading(double quietShare) {
            double quietHere = quietShare / (1 - quietShare);
            return micros(
                    hotTask - otherTask * quietHere,
                    Math.round(hotSubtaskReadings - (readings - hotSubtaskReadings) * quietHere));
        }

        double sourcePerReading() {
            return micros(sourceTask, readings);
        }

        private static double micros(double seconds, long readings) {
            return readings == 0 ? Double.NaN : seconds * 1e6 / readings;
        }
    }

    private HotDeviceReport() {}

    static List<Interval> intervals(List<HotDeviceBench.Sample> samples) {
        List<Interval> intervals = new ArrayList<>();
        for (int i = 1; i < samples.size(); i++) {
            intervals.add(Interval.between(samples.get(i - 1), samples.get(i)));
        }
        return intervals;
    }

    /** The first minute's intervals together, or the last minute's ({@code last}). */
    static Interval minute(List<Interval> intervals, boolean last) {
        int per = (int) (60_000 / HotDeviceBench.SAMPLE_EVERY.toMillis());
        List<Interval> minute = last
                ? intervals.subList(Math.max(0, intervals.size() - per), intervals.size())
                : intervals.subList(0, Math.min(per, intervals.size()));
        return minute.stream().reduce(Interval::and).orElseThrow();
    }

    static String markdown(HotDeviceBench.Options options, HotDeviceBench.Run run, Path benchDir) throws IOException {
        List<Interval> all = intervals(run.samples());
        List<Interval> intervals = all.subList(run.warmUp(), all.size());
        double q = run.quietShare();
        StringBuilder md = new StringBuilder(SECTION).append("\n\n");
        md.append(String.format(
                Locale.ROOT,
                "`%s`: the production topology (parallelism 2, 4 shards, daily periods, `rollups.every=%s`,"
                        + " `rollups.exact-within` at its default of an hour, `latest.enabled=true`) on RocksDB"
                        + " (incremental checkpoints every %,d ms, file checkpoint storage, %s managed memory) against"
                        + " the instant backend. Input: `%s` at 1,000 readings/s, a millisecond apart in event time,"
                        + " among %,d quiet devices reading once every %d s each, %,.0f readings/s in all, paced at"
                        + " real time by the generator source's rate limiter (event time = the wall clock at the"
                        + " job's start + the reading's place in the schedule), JSON parsed in the source;"
                        + " %d minutes measured after %d of warm-up from the first reading, sampled every %d s."
                        + " The hot device is on subtask %d of the windows task (period windows, period sink,"
                        + " rollups, rollups sink, latest sink, chained), with %.1f %% of the quiet devices."
                        + " Load average at start %s, at the end %s.%n%n",
                options.command(),
                Contenders.ROLLUPS_EVERY,
                Contenders.CHECKPOINT_MILLIS,
                ScaleBench.MANAGED_MEMORY,
                HotFleet.HOT_DEVICE,
                HotDeviceBench.QUIET_DEVICES,
                HotDeviceBench.QUIET_EVERY.toSeconds(),
                run.perSecond(),
                options.minutes(),
                HotDeviceBench.WARM_UP.toMinutes(),
                HotDeviceBench.SAMPLE_EVERY.toSeconds(),
                run.hotSubtask(),
                100 * q,
                run.loadAtStart(),
                run.loadAtEnd()));
        md.append("*Readings* = those the rollups counted. *CPU per reading* = the process's CPU time (every"
                + " thread: GC and RocksDB's included) less the JIT compiler's and the instant backend's, over the"
                + " readings; *hot subtask* and *other subtask* = the windows task thread of each subtask over"
                + " the readings of that subtask; *hot device alone* = the hot subtask's thread less the other's"
                + " for as many quiet readings, over the hot device's readings (an estimate); *source* = the"
                + " source task's thread (generating, parsing).\n\n");
        md.append("| seconds | readings/s | of them on the hot subtask | CPU per reading | hot subtask per reading |"
                + " other subtask per reading | hot device alone | source per reading | JIT ms | GC pause ms |"
                + " checkpoint full size |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (int n = 0; n < all.size(); n++) {
            Interval i = all.get(n);
            md.append(row(
                    String.format(Locale.ROOT, "%.0f–%.0f%s", i.from(), i.to(), n < run.warmUp() ? " (warm-up)" : ""),
                    i,
                    q));
        }
        Interval first = minute(intervals, false);
        Interval last = minute(intervals, true);
        md.append(row("**first measured minute**", first, q));
        md.append(row("**last minute**", last, q));
        md.append(String.format(
                Locale.ROOT,
                "%nLast minute ÷ first measured minute: CPU per reading **%.2f**, hot subtask per reading **%.2f**,"
                        + " other subtask %.2f, hot device alone %.2f, source %.2f.%n",
                last.cpuPerReading() / first.cpuPerReading(),
                last.hotTaskPerReading() / first.hotTaskPerReading(),
                last.otherTaskPerReading() / first.otherTaskPerReading(),
                last.hotDevicePerReading(q) / first.hotDevicePerReading(q),
                last.sourcePerReading() / first.sourcePerReading()));
        Files.writeString(benchDir.resolve(SVG), chart(intervals, q));
        md.append("\n![CPU per reading over the run](").append(SVG).append(")\n");
        return md.toString();
    }

    private static String row(String label, Interval i, double quietShare) {
        double seconds = i.to() - i.from();
        return String.format(
                Locale.ROOT,
                "| %s | %,.0f | %,.0f | %.1f µs | %.1f µs | %.1f µs | %.1f µs | %.1f µs | %,.0f | %,d | %s |%n",
                label,
                i.readings() / seconds,
                i.hotSubtaskReadings() / seconds,
                i.cpuPerReading(),
                i.hotTaskPerReading(),
                i.otherTaskPerReading(),
                i.hotDevicePerReading(quietShare),
                i.sourcePerReading(),
                i.jit() * 1000,
                i.gcMillis(),
                ScaleReport.bytes(i.stateBytes()));
    }

    private static String chart(List<Interval> intervals, double quietShare) {
        XYSeries cpu = new XYSeries("CPU per reading (process)");
        XYSeries hot = new XYSeries("hot subtask's task thread, per its reading");
        XYSeries alone = new XYSeries("hot device alone (estimate)");
        for (Interval i : intervals) {
            double minute = (i.from() + i.to()) / 120;
            cpu.add(minute, i.cpuPerReading());
            hot.add(minute, i.hotTaskPerReading());
            alone.add(minute, i.hotDevicePerReading(quietShare));
        }
        XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(cpu);
        data.addSeries(hot);
        data.addSeries(alone);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        Color[] colors = {new Color(0x1f, 0x5f, 0xbf), new Color(0xcc, 0x33, 0x33), new Color(0x88, 0x44, 0xaa)};
        for (int s = 0; s < colors.length; s++) {
            renderer.setSeriesPaint(s, colors[s]);
            renderer.setSeriesStroke(s, new BasicStroke(2f));
        }
        NumberAxis y = new NumberAxis("CPU µs per reading");
        y.setAutoRangeIncludesZero(true);
        XYPlot plot = new XYPlot(
                data, new NumberAxis("minutes since the first reading (the first was the warm-up)"), y, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
        JFreeChart chart = new JFreeChart(
                String.format(
                        Locale.ROOT,
                        "A device at 1,000 readings/s among %,d quiet ones: CPU per reading",
                        HotDeviceBench.QUIET_DEVICES),
                new java.awt.Font("SansSerif", java.awt.Font.BOLD, 15),
                plot,
                true);
        chart.setBackgroundPaint(Color.WHITE);
        TextUtils.setUseDrawRotatedStringWorkaround(false);
        SVGGraphics2D svg = new SVGGraphics2D(W, H);
        chart.draw(svg, new Rectangle2D.Double(0, 0, W, H));
        return svg.getSVGDocument();
    }
}
