package io.periodtables.bench.rollover;

import io.periodtables.bench.BenchMetrics;
import io.periodtables.core.config.UserMetrics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Samples the sink's counters every {@code periodMillis} on a daemon thread while a job runs:
 * total records written, missing-table fallbacks, and the wall time at which each table got its
 * first write (the rollover as the sink sees it).
 */
final class Sampler implements AutoCloseable {

    /** One sample: milliseconds since the sampler started, counters at that moment. */
    record Sample(long atMillis, long written, long fallbacks) {}

    private final long startNanos = System.nanoTime();
    private final List<Sample> samples = new ArrayList<>();
    private final Map<String, Long> firstWriteMillis = new LinkedHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;

    Sampler(long periodMillis) {
        thread = new Thread(
                () -> {
                    while (running) {
                        sample();
                        try {
                            Thread.sleep(periodMillis);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "bench-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void sample() {
        long at = (System.nanoTime() - startNanos) / 1_000_000;
        Sample sample = new Sample(
                at,
                BenchMetrics.sum(UserMetrics.RECORDS_WRITTEN),
                BenchMetrics.sum(UserMetrics.MISSING_TABLE_FALLBACKS));
        Map<String, Long> perTable = BenchMetrics.writtenPerTable();
        synchronized (this) {
            samples.add(sample);
            perTable.forEach((table, count) -> {
                if (count > 0) {
                    firstWriteMillis.putIfAbsent(table, at);
                }
            });
        }
    }

    synchronized List<Sample> samples() {
        return new ArrayList<>(samples);
    }

    /** Table name → milliseconds (since start) of the first sample that saw a write to it, in that order. */
    synchronized Map<String, Long> firstWrites() {
        return new LinkedHashMap<>(firstWriteMillis);
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join();
    }
}
