package io.periodtables.emulators;

import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/** Waits for a condition with a bound instead of sleeping a fixed time. */
final class Polling {
    private static final Duration BOUND = Duration.ofSeconds(30);

    private Polling() {}

    static void until(BooleanSupplier condition, String what) {
        Instant deadline = Instant.now().plus(BOUND);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("gave up after " + BOUND + " waiting for " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }
}
