package io.periodtables.archive;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One request per file of a period's folder (a footer read, a delete, a small file's bytes),
 * {@link #AT_ONCE} at a time: on S3 each is a round trip of tens of milliseconds, so a day's 10,000
 * part files one after the other would hold its marker for minutes of waiting alone. The threads
 * last one call.
 */
final class FileRequests {
    /** Requests in flight at most: well within the S3 file system's connection pool. */
    static final int AT_ONCE = 8;

    private FileRequests() {}

    /** A request about one item that may fail with an {@link IOException}. */
    @FunctionalInterface
    interface Request<T, R> {
        R apply(T item) throws IOException;
    }

    /** The answers of {@code request} for each of {@code items}, in their order; the first failure is thrown. */
    static <T, R> List<R> each(List<T> items, Request<T, R> request) throws IOException {
        List<R> answers = new ArrayList<>(items.size());
        try (Ahead<R> ahead = ahead(items, request)) {
            for (int i = 0; i < items.size(); i++) {
                answers.add(ahead.next());
            }
        }
        return answers;
    }

    /** The sum of {@code request}'s answers for each of {@code items}. */
    static <T> long sum(List<T> items, Request<T, Long> request) throws IOException {
        long sum = 0;
        for (long answer : each(items, request)) {
            sum += answer;
        }
        return sum;
    }

    /**
     * The answers of {@code request} for each of {@code items}, taken in their order with {@link
     * Ahead#next}, each asked for at most {@link #AT_ONCE} items ahead of the one taken last: besides
     * that one, at most {@link #AT_ONCE} answers are held or under way.
     */
    static <T, R> Ahead<R> ahead(List<T> items, Request<T, R> request) {
        return new Ahead<>(items, request);
    }

    /** Answers asked for ahead of their use; closing it stops what is still asked. */
    static final class Ahead<R> implements Closeable {
        private final List<Callable<R>> requests = new ArrayList<>();
        private final ArrayDeque<Future<R>> asked = new ArrayDeque<>();
        private final ExecutorService threads;
        private int next;

        private <T> Ahead(List<T> items, Request<T, R> request) {
            for (T item : items) {
                requests.add(() -> {
                    try {
                        return request.apply(item);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
            threads = Executors.newFixedThreadPool(Math.max(1, Math.min(AT_ONCE, items.size())), runnable -> {
                Thread thread = new Thread(runnable, "archive-file-requests");
                thread.setDaemon(true);
                return thread;
            });
            while (next < requests.size() && asked.size() < AT_ONCE) {
                asked.add(threads.submit(requests.get(next++)));
            }
        }

        /** The next item's answer, waited for; its failure thrown. */
        R next() throws IOException {
            Future<R> answer = asked.poll();
            if (answer == null) {
                throw new NoSuchElementException("every answer was taken");
            }
            if (next < requests.size()) {
                asked.add(threads.submit(requests.get(next++)));
            }
            try {
                return answer.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for a file", e);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UncheckedIOException io) {
                    throw io.getCause();
                }
                throw new IOException(e.getCause());
            }
        }

        @Override
        public void close() {
            threads.shutdownNow();
        }
    }
}
