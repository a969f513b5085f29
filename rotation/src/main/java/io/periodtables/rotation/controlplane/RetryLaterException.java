package io.periodtables.rotation.controlplane;

import java.time.Duration;
import java.util.Optional;

/**
 * Thrown by one attempt of a control-plane operation that cannot proceed yet (a quota, a
 * table still UPDATING): {@link RetryLoop} tries again after {@link #delay()}, or after its
 * backoff when there is none, and counts it as a deferral rather than a failure.
 */
public final class RetryLaterException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Duration delay;

    RetryLaterException(String reason, Duration delay, Throwable cause) {
        super(reason, cause);
        this.delay = delay;
    }

    Optional<Duration> delay() {
        return Optional.ofNullable(delay);
    }
}
