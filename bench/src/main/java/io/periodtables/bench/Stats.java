package io.periodtables.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Median and range of a few benchmark values, as RESULTS.md shows them. */
public record Stats(double median, double min, double max, int n) {

    public static Stats of(List<Double> values) {
        if (values.isEmpty()) {
            return new Stats(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        double median = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
        return new Stats(median, sorted.get(0), sorted.get(n - 1), n);
    }

    /** {@code median (min–max)} with {@code pattern} for each number. */
    public String format(String pattern) {
        return String.format(Locale.ROOT, pattern, median) + " (" + String.format(Locale.ROOT, pattern, min) + "–"
                + String.format(Locale.ROOT, pattern, max) + ")";
    }
}
