package io.periodtables.query.output;

import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.PeriodLength;
import io.periodtables.core.period.TableNaming;
import io.periodtables.query.StoredReading;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.font.FontRenderContext;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
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

/**
 * A device's readings as an SVG chart (JFreeChart drawn by JFreeSVG): one panel and line per
 * numeric payload attribute over a shared time axis, broken where readings are missing
 * ({@link ChartGaps}), a dashed line at every period boundary inside the range (at most
 * {@value #MAX_LABELS} of them labelled with the period that starts there), and the readings
 * that came from a late table marked with red crosses on their line.
 */
public final class ReadingChart {
    private static final int WIDTH = 1000;
    private static final int PANEL_HEIGHT = 200;
    private static final Color LINE = new Color(0x1f, 0x5f, 0xbf);
    private static final Color LATE = new Color(0xcc, 0x22, 0x22);
    private static final Color BOUNDARY = new Color(0x88, 0x88, 0x88);
    private static final Font LABEL_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 9);

    /** The plot's width at least: the chart's less its value axis and insets (about 70 px). */
    private static final int MIN_PLOT_WIDTH = WIDTH - 80;

    /**
     * Where the period labels go. A label is drawn right of its boundary; one that would run past
     * the plot's right edge is drawn left of it instead, unless it would then run into the label
     * before, in which case it is left out (its boundary is still dashed).
     */
    record Labels(List<Period> shown, Set<Period> leftOfLine) {

        static Labels place(List<Period> labelled, Instant from, Instant to) {
            if (labelled.isEmpty()) {
                return new Labels(labelled, Set.of());
            }
            Period last = labelled.get(labelled.size() - 1);
            double span = to.toEpochMilli() - from.toEpochMilli();
            double pxPerMilli = MIN_PLOT_WIDTH / span;
            double width = width(last.label()) + 4;
            double lastX = (last.startMillis() - from.toEpochMilli()) * pxPerMilli;
            if (lastX + width <= MIN_PLOT_WIDTH) {
                return new Labels(labelled, Set.of());
            }
            if (labelled.size() > 1) {
                Period before = labelled.get(labelled.size() - 2);
                double beforeEnd =
                        (before.startMillis() - from.toEpochMilli()) * pxPerMilli + width(before.label()) + 4;
                if (lastX - width < beforeEnd) {
                    return new Labels(labelled.subList(0, labelled.size() - 1), Set.of());
                }
            }
            return new Labels(labelled, Set.of(last));
        }

        private static double width(String label) {
            return LABEL_FONT
                    .getStringBounds(label, new FontRenderContext(null, true, true))
                    .getWidth();
        }
    }

    /** At most this many period labels, so that they never run into each other. */
    static final int MAX_LABELS = 8;
    /** Label steps, in periods: round numbers of minutes, hours, days and months. */
    private static final int[] NICE_STEPS = {1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60, 120, 180, 240, 360, 720, 1440};
    /** Up to this many boundaries each is dashed (at least ~7 px apart); beyond, only the labelled ones. */
    private static final int MAX_DASHED = 120;

    private ReadingChart() {}

    /**
     * The chart of {@code readings} of {@code deviceId} over {@code [from, to)} as an SVG document;
     * the time of {@code noTable} (periods whose table the query found missing) shaded.
     */
    public static String svg(
            String deviceId,
            List<StoredReading> readings,
            Instant from,
            Instant to,
            TableNaming naming,
            List<Period> noTable) {
        DateAxis time = new DateAxis("time (" + naming.calendar().zone() + ")");
        time.setTimeZone(TimeZone.getTimeZone(naming.calendar().zone()));
        time.setRange(from.toEpochMilli(), to.toEpochMilli());
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(time);
        plot.setGap(8);
        Set<String> metrics = numericAttributes(readings);
        List<Period> boundaries = boundaries(naming.calendar(), from, to);
        int step = labelStep(boundaries.size());
        List<Period> everyStep = boundaries.stream()
                .filter(p -> ordinal(p, naming.calendar()) % step == 0)
                .toList();
        List<Period> dashed = boundaries.size() <= MAX_DASHED ? boundaries : everyStep;
        Labels labels = Labels.place(everyStep, from, to);
        List<Period> labelled = labels.shown();
        boolean first = true;
        for (String metric : metrics) {
            XYPlot panel = panel(metric, readings, naming, dashed, first ? labelled : List.of(), labels.leftOfLine());
            ChartGaps.shadeNoTable(panel, noTable);
            plot.add(panel);
            first = false;
        }
        long late = readings.stream().filter(r -> naming.isLateTable(r.table())).count();
        JFreeChart chart = new JFreeChart(
                deviceId + ": " + readings.size() + " readings", JFreeChart.DEFAULT_TITLE_FONT, plot, false);
        chart.setBackgroundPaint(Color.WHITE);
        chart.addSubtitle(new TextTitle(
                metrics.isEmpty()
                        ? "no numeric attributes to draw"
                        : (dashed == boundaries
                                        ? "dashed: period boundary (a new table)"
                                        : "dashed: every " + step + "th period boundary (a new table)")
                                + "; red \u00d7: late reading, stored in a late table (" + late + ")"
                                + (noTable.isEmpty() ? "" : ChartGaps.NO_TABLE_LEGEND)));
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
            List<Period> labelled,
            Set<Period> leftOfLine) {
        List<StoredReading> measured = readings.stream()
                .filter(r -> r.payload().get(metric) != null
                        && r.payload().get(metric).n() != null)
                .toList();
        long gap = ChartGaps.readingGap(
                measured.stream().mapToLong(r -> r.eventTime().toEpochMilli()).toArray());
        // A segment of one reading has no line: it is a dot. Between segments a point without a
        // value stops the line (JFreeChart draws no line to or from it).
        XYSeries line = new XYSeries(metric);
        XYSeries dots = new XYSeries(metric + " (alone)");
        XYSeries late = new XYSeries(metric + " (late)");
        for (List<StoredReading> segment :
                ChartGaps.segments(measured, r -> r.eventTime().toEpochMilli(), gap)) {
            if (!line.isEmpty()) {
                line.add(segment.get(0).eventTime().toEpochMilli() - 1, null);
            }
            for (StoredReading r : segment) {
                double value = Double.parseDouble(r.payload().get(metric).n());
                line.add(r.eventTime().toEpochMilli(), value);
                if (segment.size() == 1) {
                    dots.add(r.eventTime().toEpochMilli(), value);
                }
                if (naming.isLateTable(r.table())) {
                    late.add(r.eventTime().toEpochMilli(), value);
                }
            }
        }
        XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(line);
        data.addSeries(dots);
        data.addSeries(late);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer();
        renderer.setSeriesPaint(0, LINE);
        renderer.setSeriesShapesVisible(0, false);
        renderer.setSeriesStroke(0, new BasicStroke(1.5f));
        renderer.setSeriesPaint(1, LINE);
        renderer.setSeriesLinesVisible(1, false);
        renderer.setSeriesShape(1, new Ellipse2D.Double(-2, -2, 4, 4));
        renderer.setSeriesPaint(2, LATE);
        renderer.setSeriesLinesVisible(2, false);
        renderer.setSeriesShape(2, cross(5));
        renderer.setSeriesShapesFilled(2, false);
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
            if (labelled.contains(period)) {
                marker.setLabel(period.label());
                marker.setLabelFont(LABEL_FONT);
                boolean left = leftOfLine.contains(period);
                marker.setLabelAnchor(left ? RectangleAnchor.TOP_LEFT : RectangleAnchor.TOP_RIGHT);
                marker.setLabelTextAnchor(left ? TextAnchor.TOP_RIGHT : TextAnchor.TOP_LEFT);
            }
            panel.addDomainMarker(marker);
        }
        return panel;
    }

    /**
     * Every how many periods a boundary is labelled: the smallest of {@link #NICE_STEPS} that
     * leaves at most {@value #MAX_LABELS} labels (an hour of one-minute periods: every 10th).
     */
    static int labelStep(int boundaries) {
        for (int step : NICE_STEPS) {
            if (ceilDiv(boundaries, step) <= MAX_LABELS) {
                return step;
            }
        }
        return ceilDiv(boundaries, MAX_LABELS);
    }

    /**
     * The period's number in a run of consecutive integers, counted in the zone's local time so
     * that the labelled ones fall on round times: every 10th one-minute period starts at :00, :10, ….
     */
    static long ordinal(Period period, PeriodCalendar calendar) {
        LocalDateTime start = LocalDateTime.ofInstant(period.start(), calendar.zone());
        if (calendar.length().kind() == PeriodLength.Kind.MONTH) {
            return start.getYear() * 12L + start.getMonthValue() - 1;
        }
        return Math.floorDiv(
                start.toEpochSecond(ZoneOffset.UTC) / 60, calendar.length().nominalMinutes());
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
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
