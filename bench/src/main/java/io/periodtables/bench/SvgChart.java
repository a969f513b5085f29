package io.periodtables.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.geom.Rectangle2D;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
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
 * The rollover chart (JFreeChart drawn by JFreeSVG): readings written per second over the run,
 * a dashed red line at each rollover (first write to the next period's table) and the steady
 * median as a dotted green line.
 */
public final class SvgChart {
    private static final int W = 900;
    private static final int H = 360;

    private SvgChart() {}

    /** {@code perSecond[i]} = readings written in second {@code i}; {@code rollovers} in seconds. */
    public static String render(String title, double[] perSecond, List<Double> rollovers, double median) {
        XYSeries written = new XYSeries("readings written per second");
        for (int i = 0; i < perSecond.length; i++) {
            written.add(i + 0.5, perSecond[i]); // drawn at the middle of its second
        }
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
        renderer.setSeriesPaint(0, new Color(0x1f, 0x5f, 0xbf));
        renderer.setSeriesStroke(0, new BasicStroke(2f));
        NumberAxis seconds = new NumberAxis("seconds since start");
        seconds.setRange(0, Math.max(perSecond.length, 1));
        NumberAxis rate = new NumberAxis("readings written per second");
        XYPlot plot = new XYPlot(new XYSeriesCollection(written), seconds, rate, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
        plot.setDomainGridlinesVisible(false);
        ValueMarker steady = new ValueMarker(median, new Color(0x22, 0xaa, 0x22), dashed(2f, 3f));
        steady.setLabel(String.format(Locale.ROOT, "median %,.0f/s", median));
        steady.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
        steady.setLabelTextAnchor(TextAnchor.BOTTOM_RIGHT);
        plot.addRangeMarker(steady);
        for (double r : rollovers) {
            plot.addDomainMarker(new ValueMarker(r, new Color(0xcc, 0x33, 0x33), dashed(5f, 4f)));
        }
        JFreeChart chart = new JFreeChart(title, new java.awt.Font("SansSerif", java.awt.Font.BOLD, 15), plot, false);
        chart.setBackgroundPaint(Color.WHITE);
        chart.addSubtitle(new TextTitle("dashed red: rollover to the next period table"));
        TextUtils.setUseDrawRotatedStringWorkaround(false);
        SVGGraphics2D svg = new SVGGraphics2D(W, H);
        chart.draw(svg, new Rectangle2D.Double(0, 0, W, H));
        return svg.getSVGDocument();
    }

    private static BasicStroke dashed(float on, float off) {
        return new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {on, off}, 0f);
    }
}
