package io.periodtables.query.output;

import io.periodtables.core.item.Rollups;
import io.periodtables.core.period.Period;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.geom.Rectangle2D;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Set;
import java.util.TimeZone;
import java.util.TreeSet;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.DateAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.DeviationRenderer;
import org.jfree.chart.text.TextUtils;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

/**
 * A device's rollup buckets as an SVG chart (JFreeChart drawn by JFreeSVG): one panel per field
 * over a shared time axis, the band from each bucket's minimum to its maximum shaded and the
 * average drawn as a line through it, each flat over the time its bucket covers; a missing bucket
 * leaves a gap.
 */
public final class RollupChart {
    private static final int WIDTH = 1000;
    private static final int PANEL_HEIGHT = 200;
    static final Color AVERAGE = new Color(0x1f, 0x5f, 0xbf);
    static final Color BAND = new Color(0x9f, 0xbf, 0xef);

    private RollupChart() {}

    /**
     * The chart of {@code buckets} of {@code deviceId} over {@code [from, to)} as an SVG document;
     * the time of {@code noTable} (periods whose rollups table the query found missing) shaded.
     */
    public static String svg(
            String deviceId,
            Duration grain,
            List<Rollups.Bucket> buckets,
            Instant from,
            Instant to,
            ZoneId zone,
            List<Period> noTable) {
        DateAxis time = new DateAxis("time (" + zone + ")");
        time.setTimeZone(TimeZone.getTimeZone(zone));
        time.setRange(from.toEpochMilli(), to.toEpochMilli());
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(time);
        plot.setGap(8);
        Set<String> fields = new TreeSet<>();
        buckets.forEach(b -> fields.addAll(b.fields().keySet()));
        for (String field : fields) {
            XYPlot panel = panel(field, grain, buckets);
            ChartGaps.shadeNoTable(panel, noTable);
            plot.add(panel);
        }
        JFreeChart chart = new JFreeChart(
                deviceId + ": " + buckets.size() + " bucket(s) of " + grain,
                JFreeChart.DEFAULT_TITLE_FONT,
                plot,
                false);
        chart.setBackgroundPaint(Color.WHITE);
        chart.addSubtitle(new TextTitle(
                fields.isEmpty()
                        ? "no fields to draw"
                        : "line: average   band: minimum to maximum; each over the time its bucket covers"
                                + (noTable.isEmpty() ? "" : ChartGaps.NO_TABLE_LEGEND)));
        // Axis labels as SVG text, not glyph outlines: searchable, selectable, small.
        TextUtils.setUseDrawRotatedStringWorkaround(false);
        int height = 120 + PANEL_HEIGHT * Math.max(1, fields.size());
        SVGGraphics2D svg = new SVGGraphics2D(WIDTH, height);
        chart.draw(svg, new Rectangle2D.Double(0, 0, WIDTH, height));
        return svg.getSVGDocument();
    }

    /**
     * One series per run of consecutive buckets (a missing bucket ends a run), each bucket drawn
     * over the time it covers, {@code [start, start + grain)}: its band and its average are flat
     * there, so neither slopes into a neighbour's values nor crosses a bucket that holds nothing.
     */
    private static XYPlot panel(String field, Duration grain, List<Rollups.Bucket> buckets) {
        List<Rollups.Bucket> withField =
                buckets.stream().filter(b -> b.fields().containsKey(field)).toList();
        YIntervalSeriesCollection data = new YIntervalSeriesCollection();
        DeviationRenderer renderer = new DeviationRenderer(true, false);
        renderer.setAlpha(1f);
        for (List<Rollups.Bucket> run : ChartGaps.segments(withField, Rollups.Bucket::startMillis, grain.toMillis())) {
            int index = data.getSeriesCount();
            YIntervalSeries series = new YIntervalSeries(field + " " + index);
            for (Rollups.Bucket bucket : run) {
                Rollups.FieldStats stats = bucket.fields().get(field);
                for (long at : new long[] {bucket.startMillis(), bucket.startMillis() + grain.toMillis()}) {
                    series.add(
                            at,
                            stats.average().doubleValue(),
                            stats.min().doubleValue(),
                            stats.max().doubleValue());
                }
            }
            data.addSeries(series);
            renderer.setSeriesPaint(index, AVERAGE);
            renderer.setSeriesFillPaint(index, BAND);
            renderer.setSeriesStroke(index, new BasicStroke(1.5f));
        }
        NumberAxis axis = new NumberAxis(field);
        axis.setAutoRangeIncludesZero(false);
        XYPlot panel = new XYPlot(data, null, axis, renderer);
        panel.setBackgroundPaint(Color.WHITE);
        panel.setRangeGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
        panel.setDomainGridlinesVisible(false);
        return panel;
    }
}
