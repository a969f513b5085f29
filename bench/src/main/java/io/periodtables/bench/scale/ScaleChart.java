package io.periodtables.bench.scale;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.geom.Rectangle2D;
import java.util.List;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.text.TextUtils;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

/**
 * The scale bench's chart: each checkpoint's full size against the simulated time it was taken
 * at, for this build and, when given, the build before.
 */
final class ScaleChart {
    private static final int W = 900;
    private static final int H = 360;

    private ScaleChart() {}

    /** {@code unit} = simulated millis per x-axis step (an hour for the day, a day for the week). */
    static String render(String title, List<ScaleSample> mine, List<ScaleSample> before, long unit, String unitName) {
        XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(series("this build", mine, unit));
        if (!before.isEmpty()) {
            data.addSeries(series("before (ce9ab45)", before, unit));
        }
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        renderer.setSeriesPaint(0, new Color(0x1f, 0x5f, 0xbf));
        renderer.setSeriesStroke(0, new BasicStroke(2f));
        renderer.setSeriesPaint(1, new Color(0xcc, 0x33, 0x33));
        renderer.setSeriesStroke(1, new BasicStroke(2f));
        NumberAxis x = new NumberAxis("simulated " + unitName + "s since the first midnight");
        NumberAxis y = new NumberAxis("full checkpoint size, KiB");
        XYPlot plot = new XYPlot(data, x, y, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
        JFreeChart chart = new JFreeChart(title, new java.awt.Font("SansSerif", java.awt.Font.BOLD, 15), plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        TextUtils.setUseDrawRotatedStringWorkaround(false);
        SVGGraphics2D svg = new SVGGraphics2D(W, H);
        chart.draw(svg, new Rectangle2D.Double(0, 0, W, H));
        return svg.getSVGDocument();
    }

    private static XYSeries series(String name, List<ScaleSample> samples, long unit) {
        XYSeries s = new XYSeries(name);
        long origin = ScaleReport.origin(samples);
        for (ScaleSample sample : samples) {
            s.add((sample.simulatedMillis() - origin) / (double) unit, sample.fullBytes() / 1024.0);
        }
        return s;
    }
}
