package io.periodtables.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The phases of one end-to-end run from a counter of written readings sampled every {@value
 * #SAMPLE_MILLIS} ms: when the first reading was written, the steady rate between 10 % and 90 %
 * of them (what neither the start, the first table's creation included, nor the end of input
 * weighs on), and how long the run went on after the last one.
 */
public final class WriteProgress implements AutoCloseable {
    static final long SAMPLE_MILLIS = 50;

    /** A run's phases, in seconds from its start; NaN when nothing was counted. */
    public record Phases(double firstWrite, double steadyReadingsPerSecond, double afterLastWrite) {
        public static final Phases UNKNOWN = new Phases(Double.NaN, Double.NaN, Double.NaN);
    }

    private final long start = System.nanoTime();
    private final long n;
    private final LongSupplier written;
    private final List<long[]> samples = new ArrayList<>();
    private final Thread sampler;

    /** Starts sampling {@code written}, which reaches {@code n} when the run has written everything. */
    WriteProgress(long n, LongSupplier written) {
        this.n = n;
        this.written = written;
        this.sampler = new Thread(this::sample, "write-progress");
        sampler.setDaemon(true);
        sampler.start();
    }

    private void sample() {
        long last = -1;
        while (!Thread.currentThread().isInterrupted()) {
            long count = written.getAsLong();
            if (count != last) {
                synchronized (samples) {
                    samples.add(new long[] {System.nanoTime() - start, count});
                }
                last = count;
            }
            try {
                Thread.sleep(SAMPLE_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Stops sampling; the phases of a run that ended {@code endNanos} (System.nanoTime) ago from its start. */
    Phases phases(long endNanos) {
        close();
        List<long[]> all;
        synchronized (samples) {
            all = List.copyOf(samples);
        }
        double first = Double.NaN;
        double t10 = Double.NaN;
        double t90 = Double.NaN;
        double last = Double.NaN;
        for (long[] s : all) {
            double at = s[0] / 1e9;
            if (Double.isNaN(first) && s[1] > 0) {
                first = at;
            }
            if (Double.isNaN(t10) && s[1] >= n / 10) {
                t10 = at;
            }
            if (Double.isNaN(t90) && s[1] >= n * 9 / 10) {
                t90 = at;
            }
            if (Double.isNaN(last) && s[1] >= n) {
                last = at;
            }
        }
        double steady = t90 > t10 ? (n * 8 / 10) / (t90 - t10) : Double.NaN;
        return new Phases(first, steady, (endNanos - start) / 1e9 - last);
    }

    @Override
    public void close() {
        sampler.interrupt();
        try {
            sampler.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
