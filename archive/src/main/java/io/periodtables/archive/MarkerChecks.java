package io.periodtables.archive;

import io.periodtables.core.period.Period;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The marker checks of {@link ArchiveMarkers} ({@link PeriodMarker#markIfComplete}), at most one
 * per period, on a background thread: a check reads files, possibly many on S3, and checkpoints
 * must not wait for it. A failed check is logged and forgotten, so the next one tries again.
 */
final class MarkerChecks implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MarkerChecks.class);

    private final String archivePath;
    /** The task manager's spilling folder, for the distinct-key counts. */
    private final java.nio.file.Path spill;

    private final ExecutorService checks;
    private final Map<Long, Future<Boolean>> running = new HashMap<>();

    MarkerChecks(String archivePath, java.nio.file.Path spill) {
        this.archivePath = archivePath;
        this.spill = spill;
        this.checks = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "archive-markers");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Whether a check of the period starting at {@code periodStart} is running. */
    boolean running(long periodStart) {
        return running.containsKey(periodStart);
    }

    /** Starts the check of {@code period}: the marker once this run's files hold {@code expectedRows}. */
    void start(Period period, long expectedRows, PeriodMarker.ThisRun files) {
        running.put(
                period.startMillis(),
                checks.submit(() -> PeriodMarker.markIfComplete(archivePath, period, expectedRows, files, spill)));
    }

    /** Forgets the finished checks; returns the starts of the periods whose marker they found or wrote. */
    List<Long> finished() {
        List<Long> marked = new ArrayList<>();
        Iterator<Map.Entry<Long, Future<Boolean>>> it = running.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Long, Future<Boolean>> check = it.next();
            if (!check.getValue().isDone()) {
                continue;
            }
            it.remove();
            try {
                if (check.getValue().get()) {
                    marked.add(check.getKey());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return marked;
            } catch (ExecutionException e) {
                LOG.warn(
                        "Cannot check the archive of the period starting at {} yet; retrying after the next checkpoint",
                        Instant.ofEpochMilli(check.getKey()),
                        e.getCause());
            }
        }
        return marked;
    }

    /** Waits for the checks running now; {@link #finished} then has them all. */
    void awaitRunning() throws InterruptedException {
        for (Future<Boolean> check : new ArrayList<>(running.values())) {
            try {
                check.get();
            } catch (ExecutionException failed) {
                // reported by finished
            }
        }
    }

    @Override
    public void close() {
        checks.shutdownNow();
    }
}
