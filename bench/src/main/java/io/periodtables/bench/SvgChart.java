package io.periodtables.bench;

import java.util.List;
import java.util.Locale;

/**
 * A hand-written SVG line chart: readings written per second over the run, a dashed vertical
 * line at each rollover (first write to the next period's table) and the steady median.
 */
final class SvgChart {

    private static final int W = 900;
    private static final int H = 360;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 40;
    private static final int BOTTOM = 50;

    private SvgChart() {}

    /** {@code perSecond[i]} = readings written in second {@code i}; {@code rollovers} in seconds. */
    static String render(String title, double[] perSecond, List<Double> rollovers, double median) {
        double maxY = median * 1.5;
        for (double v : perSecond) {
            maxY = Math.max(maxY, v * 1.1);
        }
        double maxX = Math.max(perSecond.length, 1);
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", W, H, W, H));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", W, H));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
                LEFT, escape(title)));
        int plotW = W - LEFT - RIGHT;
        int plotH = H - TOP - BOTTOM;
        // axes and grid
        for (int i = 0; i <= 5; i++) {
            double v = maxY * i / 5;
            double y = TOP + plotH - plotH * i / 5.0;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n",
                    LEFT, y, W - RIGHT, y));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%,.0f</text>%n",
                    LEFT - 6, y + 4, v));
        }
        int step = maxX > 60 ? 10 : 5;
        for (int s = 0; s <= maxX; s += step) {
            double x = LEFT + plotW * s / maxX;
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>%n",
                    x, H - BOTTOM + 18, s));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">seconds since start</text>%n",
                LEFT + plotW / 2, H - 10));
        svg.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">"
                + "readings written per second</text>%n", TOP + plotH / 2, TOP + plotH / 2));
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>%n",
                LEFT, TOP, plotW, plotH));
        // median
        double my = TOP + plotH - plotH * median / maxY;
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#2a2\""
                + " stroke-dasharray=\"2,3\"/>%n", LEFT, my, W - RIGHT, my));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" fill=\"#2a2\" text-anchor=\"end\">median %,.0f/s</text>%n",
                W - RIGHT - 4, my - 4, median));
        // rollovers
        for (double r : rollovers) {
            double x = LEFT + plotW * r / maxX;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c33\""
                    + " stroke-dasharray=\"5,4\"/>%n", x, TOP, x, TOP + plotH));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#c33\">dashed red: rollover to the next"
                + " period table</text>%n", LEFT + 8, TOP + 14));
        // series: one point per second, drawn at the middle of its second
        StringBuilder points = new StringBuilder();
        for (int i = 0; i < perSecond.length; i++) {
            double x = LEFT + plotW * (i + 0.5) / maxX;
            double y = TOP + plotH - plotH * perSecond[i] / maxY;
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        }
        svg.append("<polyline fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"2\" points=\"").append(points.toString().trim())
                .append("\"/>\n</svg>\n");
        return svg.toString();
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
