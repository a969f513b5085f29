package io.periodtables.sink.latest;

/**
 * How many latest puts a writer keeps in flight. A writer's puts are one per device, so its rate
 * is the window over DynamoDB's round trip: the window is sized, at each send, for the devices due
 * to be answered within one interval at the round trip DynamoDB has been answering in (a moving
 * average, with twice that for its tail), between {@value #MIN} and {@value #MAX}. The bound is
 * fixed, whatever the fleet's rate: at 20 ms round trips {@value #MAX} puts in flight are 25,600
 * puts a second per writer.
 */
final class PutWindow {
    /** The window when few devices are due: the writer's old fixed window. */
    static final int MIN = 32;
    /** The window's bound, and the writer's HTTP connections at most. */
    static final int MAX = 512;
    /** Assumed until puts are answered: a round trip to DynamoDB in a region with TLS is some ms to 20 ms. */
    static final long INITIAL_ROUND_TRIP_NANOS = 20_000_000L;
    /** Weight of the newest round trip in the average: about the last 16 count. */
    private static final double WEIGHT = 1.0 / 16;

    private final long intervalNanos;
    private double roundTripNanos = INITIAL_ROUND_TRIP_NANOS;
    private int size = MIN;

    PutWindow(long intervalMillis) {
        this.intervalNanos = intervalMillis * 1_000_000L;
    }

    /** A put was answered (stored, refused or failed) {@code nanos} after it was sent. */
    void answered(long nanos) {
        roundTripNanos += (nanos - roundTripNanos) * WEIGHT;
    }

    /** Sizes the window for {@code due} puts to be answered within one interval. */
    void resize(int due) {
        double needed = 2.0 * due * roundTripNanos / intervalNanos;
        size = (int) Math.min(MAX, Math.max(MIN, Math.ceil(needed)));
    }

    int size() {
        return size;
    }

    long roundTripMillis() {
        return Math.round(roundTripNanos / 1_000_000);
    }
}
