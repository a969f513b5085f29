package io.periodtables.local;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import sun.misc.Signal;

/**
 * Ctrl-C (SIGINT) and SIGTERM for the local run: the first one asks the run to end cleanly (stop
 * the source, drain, savepoint, summary) instead of letting the JVM tear Flink down mid-write;
 * a second one exits at once. Replacing the JVM's default handler keeps the shutdown hooks of
 * Flink and log4j from racing the clean end.
 */
final class StopSignal {
    private final CountDownLatch requested = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile boolean holding;
    private volatile String name = "Ctrl-C";

    private StopSignal() {}

    static StopSignal install() {
        StopSignal stop = new StopSignal();
        for (String name : new String[] {"INT", "TERM"}) {
            Signal.handle(new Signal(name), signal -> stop.onSignal(signal.getName()));
        }
        return stop;
    }

    private void onSignal(String signal) {
        if (holding) {
            released.countDown();
            return;
        }
        if (requested.getCount() == 0) {
            System.out.println("\nSecond interrupt: exiting without a savepoint.");
            System.exit(130);
        }
        name = signal.equals("INT") ? "Ctrl-C" : "SIG" + signal;
        System.out.println(
                "\nStopping: the source stops, the pipeline drains, then a savepoint (Ctrl-C again to exit at once).");
        requested.countDown();
    }

    /** What asked the run to stop: {@code Ctrl-C} or {@code SIGTERM}. */
    String name() {
        return name;
    }

    boolean requested() {
        return requested.getCount() == 0;
    }

    /**
     * After the run: blocks until Enter or a signal. The end of the input (stdin is no terminal:
     * {@code < /dev/null}, nohup, a script) counts as Enter only when {@code endOfInputReleases};
     * otherwise only a signal ends the wait.
     */
    void awaitEnterOrSignal(boolean endOfInputReleases) throws InterruptedException {
        holding = true;
        Thread enter = new Thread(
                () -> {
                    int read;
                    try {
                        read = System.in.read();
                    } catch (java.io.IOException e) {
                        read = -1;
                    }
                    if (read >= 0 || endOfInputReleases) {
                        released.countDown();
                    }
                },
                "await-enter");
        enter.setDaemon(true);
        enter.start();
        released.await();
    }

    /** Sleeps up to {@code millis}; returns early (true) when a stop was requested. */
    boolean await(long millis) throws InterruptedException {
        return requested.await(millis, TimeUnit.MILLISECONDS);
    }
}
