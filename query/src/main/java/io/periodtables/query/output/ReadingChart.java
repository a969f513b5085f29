package io.periodtables.query.output;

import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.TableNaming;
import io.periodtables.query.StoredReading;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TimeZone;
import java.util.TreeSet;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.DateAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.text.TextUtils;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A device's readings as an SVG chart (JFreeChart drawn by JFreeSVG): one panel and line per
 * numeric payload attribute over a shared time axis, a dashed line at every period boundary
 * inside the range (labelled with the period that starts there), and the readings that came
 * from a late table marked with red crosses on their line.
 */
public final class ReadingChart {
    private static final int WIDTH = 1000;
    private static final int PANEL_HEIGHT = 200;
    private static final Color LINE = new Color(0x1f, 0x5f, 0xbf);
    private static final Color LATE = new Color(0xcc, 0x22, 0x22);
    private static final Color BOUNDARY = new Color(0x88, 0x88, 0x88);

    private ReadingChart() {}

    /** The chart of {@code readings} of {@code deviceId} over {@code [from, to)} as an SVG document. */
    public static String svg(
            String deviceId, List<StoredReading> readings, Instant from, Instant to, TableNaming naming) {
        DateAxis time = new DateAxis("time (" + naming.calendar().zone() + ")");
        time.setTimeZone(TimeZone.getTimeZone(naming.calendar().zone()));
        time.setRange(from.toEpochMilli(), to.toEpochMilli());
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(time);
        plot.setGap(8);
        Set<String> metrics = numericAttributes(readings);
        boolean first = true;
        for (String metric : metrics) {
            plot.add(panel(metric, readings, naming, boundaries(naming.calendar(), from, to), first));
            first = false;
        }
        long late = readings.stream().filter(r -> naming.isLateTable(r.table())).count();
        JFreeChart chart = new JFreeChart(
                deviceId + ": " + readings.size() + " readings", JFreeChart.DEFAULT_TITLE_FONT, plot, false);
        chart.setBackgroundPaint(Color.WHITE);
        chart.addSubtitle(new TextTitle(
                metrics.isEmpty()
                        ? "no numeric attributes to draw"
                        : "dashed: period boundary (a new table)   red \u00d7: late reading, stored in a late table ("
                                + late + ")"));
        // Axis labels as SVG text, not glyph outlines: searchable, selectable, small.
        TextUtils.setUseDrawRotatedStringWorkaround(false);
        int height = 120 + PANEL_HEIGHT * Math.max(1, metrics.size());
        SVGGraphics2D svg = new SVGGraphics2D(WIDTH, height);
        chart.draw(svg, new Rectangle2D.Double(0, 0, WIDTH, height));
        return svg.getSVGDocument();
    }

    private static XYPlot panel(
            String metric,
            List<StoredReading> readings,
            TableNaming naming,
            List<Period> boundaries,
            boolean labelBoundaries) {
        XYSeries line = new XYSeries(metric);
        XYSeries late = new XYSeries(metric + " (late)");
        for (StoredReading r : readings) {
            AttributeValue v = r.payload().get(metric);
            if (v != null && v.n() != null) {
                double value = Double.parseDouble(v.n());
                line.add(r.eventTime().toEpochMilli(), value);
                if (naming.isLateTable(r.table())) {
                    late.add(r.eventTime().toEpochMilli(), value);
                }
            }
        }
        XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(line);
        data.addSeries(late);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer();
        renderer.setSeriesPaint(0, LINE);
        renderer.setSeriesShapesVisible(0, false);
        renderer.setSeriesStroke(0, new BasicStroke(1.5f));
        renderer.setSeriesPaint(1, LATE);
        renderer.setSeriesLinesVisible(1, false);
        renderer.setSeriesShape(1, cross(5));
        renderer.setSeriesShapesFilled(1, false);
        NumberAxis axis = new NumberAxis(metric);
        axis.setAutoRangeIncludesZero(false);
        XYPlot panel = new XYPlot(data, null, axis, renderer);
        panel.setBackgroundPaint(Color.WHITE);
        panel.setRangeGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
        panel.setDomainGridlinesVisible(false);
        for (Period period : boundaries) {
            ValueMarker marker = new ValueMarker(
                    period.startMillis(),
                    BOUNDARY,
                    new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {5f, 4f}, 0f));
            if (labelBoundaries) {
                marker.setLabel(period.label());
                marker.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
                marker.setLabelTextAnchor(TextAnchor.TOP_LEFT);
            }
            panel.addDomainMarker(marker);
        }
        return panel;
    }

    /** The periods that start inside {@code (from, to)}: each start is a rollover to a new table. */
    static List<Period> boundaries(PeriodCalendar calendar, Instant from, Instant to) {
        List<Period> starts = new java.util.ArrayList<>();
        for (Period p = calendar.next(calendar.periodOf(from)); p.start().isBefore(to); p = calendar.next(p)) {
            starts.add(p);
        }
        return starts;
    }

    private static Set<String> numericAttributes(List<StoredReading> readings) {
        Set<String> names = new TreeSet<>();
        for (StoredReading r : readings) {
            r.payload().forEach((name, value) -> {
                if (value.n() != null) {
                    names.add(name);
                }
            });
        }
        return names;
    }

    private static Path2D cross(double r) {
        Path2D.Double x = new Path2D.Double();
        x.moveTo(-r, -r);
        x.lineTo(r, r);
        x.moveTo(-r, r);
        x.lineTo(r, -r);
        return x;
    }
}
