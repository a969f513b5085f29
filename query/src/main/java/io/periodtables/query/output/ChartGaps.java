package io.periodtables.query.output;

import io.periodtables.core.period.Period;
import java.awt.Color;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToLongFunction;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.ui.Layer;

/**
 * Where a chart's line stops: points further apart in time than a gap are drawn as separate
 * segments, so that no line crosses time nothing was measured in. For rollup buckets the gap is
 * the grain (a missing bucket breaks the line); for readings, which have no grain, it is
 * {@value #READING_GAP_FACTOR} times the median spacing of the attribute's readings. The time
 * of a period that has no table (the job did not run then, or retention deleted it) is shaded,
 * so that a gap there reads as "nothing stored", not as a quiet device.
 */
final class ChartGaps {
    /** A reading further than this many median spacings from the previous one starts a new segment. */
    static final int READING_GAP_FACTOR = 5;

    /** The shade of the time of periods without a table. */
    static final Color NO_TABLE = new Color(0xee, 0xee, 0xee);

    /** What the subtitle says about the shade, when there is one. */
    static final String NO_TABLE_LEGEND = "; gray: no table for the period";

    private ChartGaps() {}

    /** Shades the time of {@code periods} behind {@code panel}'s data, adjacent periods as one band. */
    static void shadeNoTable(XYPlot panel, List<Period> periods) {
        List<Period> sorted = new ArrayList<>(periods);
        sorted.sort((a, b) -> a.start().compareTo(b.start()));
        long start = Long.MIN_VALUE;
        long end = Long.MIN_VALUE;
        for (Period p : sorted) {
            if (p.startMillis() > end) {
                addShade(panel, start, end);
                start = p.startMillis();
            }
            end = Math.max(end, p.endMillis());
        }
        addShade(panel, start, end);
    }

    private static void addShade(XYPlot panel, long start, long end) {
        if (start != Long.MIN_VALUE) {
            IntervalMarker shade = new IntervalMarker(start, end, NO_TABLE);
            shade.setOutlinePaint(null);
            panel.addDomainMarker(shade, Layer.BACKGROUND);
        }
    }

    /** {@code points}, in time order, cut where the next one is more than {@code gapMillis} later. */
    static <T> List<List<T>> segments(List<T> points, ToLongFunction<T> millis, long gapMillis) {
        List<List<T>> segments = new ArrayList<>();
        List<T> current = new ArrayList<>();
        long previous = Long.MIN_VALUE;
        for (T point : points) {
            long at = millis.applyAsLong(point);
            if (!current.isEmpty() && at - previous > gapMillis) {
                segments.add(current);
                current = new ArrayList<>();
            }
            current.add(point);
            previous = at;
        }
        if (!current.isEmpty()) {
            segments.add(current);
        }
        return segments;
    }

    /**
     * The gap of readings at {@code sortedMillis}: {@value #READING_GAP_FACTOR} times the median of
     * the positive spacings (readings in one millisecond do not count); no gap with fewer than two
     * distinct times.
     */
    static long readingGap(long[] sortedMillis) {
        long[] spacings = new long[Math.max(0, sortedMillis.length - 1)];
        int n = 0;
        for (int i = 1; i < sortedMillis.length; i++) {
            if (sortedMillis[i] > sortedMillis[i - 1]) {
                spacings[n++] = sortedMillis[i] - sortedMillis[i - 1];
            }
        }
        if (n == 0) {
            return Long.MAX_VALUE;
        }
        Arrays.sort(spacings, 0, n);
        return READING_GAP_FACTOR * spacings[n / 2];
    }
}
