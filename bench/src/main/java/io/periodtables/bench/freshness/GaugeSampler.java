package io.periodtables.bench.freshness;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * Reads a few gauges every {@code interval} on a daemon thread and keeps their means since the
 * last {@link #take()}; a gauge that reads NaN (not registered yet) is left out of its mean.
 */
final class GaugeSampler implements AutoCloseable {

    private final Map<String, DoubleSupplier> gauges;
    private final Map<String, double[]> sums = new LinkedHashMap<>(); // name -> {sum, count}; guarded by this
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gauge-sampler");
        t.setDaemon(true);
        return t;
    });

    GaugeSampler(Map<String, DoubleSupplier> gauges, Duration interval) {
        this.gauges = Map.copyOf(gauges);
        timer.scheduleWithFixedDelay(this::sample, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    private synchronized void sample() {
        gauges.forEach((name, gauge) -> {
            double value = gauge.getAsDouble();
            if (!Double.isNaN(value)) {
                double[] sum = sums.computeIfAbsent(name, n -> new double[2]);
                sum[0] += value;
                sum[1]++;
            }
        });
    }

    /** Each gauge's mean since the last call (NaN if it never had a value), and a fresh start. */
    synchronized Map<String, Double> take() {
        Map<String, Double> means = new LinkedHashMap<>();
        gauges.keySet().forEach(name -> {
            double[] sum = sums.get(name);
            means.put(name, sum == null ? Double.NaN : sum[0] / sum[1]);
        });
        sums.clear();
        return means;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
