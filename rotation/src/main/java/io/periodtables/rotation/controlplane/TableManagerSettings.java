package io.periodtables.rotation.controlplane;

import java.io.Serializable;
import java.time.Duration;
import java.util.Optional;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.Preconditions;

/**
 * Timing of the {@link TableManager}'s control-plane work: how often it polls a table on its
 * way to ACTIVE, how it backs off from transient errors, how often it defers an update the
 * table is not ready for, and how long it waits for DynamoDB's capacity-decrease quota.
 * The defaults suit real DynamoDB; tests shorten them. Immutable and serializable, so an
 * operator can carry it.
 */
@PublicEvolving
public final class TableManagerSettings implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Duration pollInterval;
    private final Duration activeTimeout;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final int maxAttempts;
    private final int maxDeferrals;
    private final Duration decreaseQuotaDelay;
    private final int maxConcurrency;

    private TableManagerSettings(Builder b) {
        this.pollInterval = b.pollInterval;
        this.activeTimeout = b.activeTimeout;
        this.initialBackoff = b.initialBackoff;
        this.maxBackoff = b.maxBackoff;
        this.maxAttempts = b.maxAttempts;
        this.maxDeferrals = b.maxDeferrals;
        this.decreaseQuotaDelay = b.decreaseQuotaDelay;
        this.maxConcurrency = b.maxConcurrency;
    }

    public static TableManagerSettings defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Delay between two DescribeTable calls while a table is on its way to ACTIVE. */
    public Duration pollInterval() {
        return pollInterval;
    }

    /** How long one wait for ACTIVE may take before the attempt counts as failed. */
    public Duration activeTimeout() {
        return activeTimeout;
    }

    public Duration initialBackoff() {
        return initialBackoff;
    }

    public Duration maxBackoff() {
        return maxBackoff;
    }

    /** Attempts of one operation that fails with transient errors (throttling, 5xx, I/O). */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** Times one operation may be put off because of a quota or a table that is not ready. */
    public int maxDeferrals() {
        return maxDeferrals;
    }

    /**
     * A fixed wait after DynamoDB refused a capacity decrease; empty (the default) waits until
     * the quota allows the next one (an hour after the last decrease, else the next UTC hour).
     */
    public Optional<Duration> decreaseQuotaDelay() {
        return Optional.ofNullable(decreaseQuotaDelay);
    }

    /** HTTP connections of a client the manager builds itself. */
    public int maxConcurrency() {
        return maxConcurrency;
    }

    /** Builder with the defaults for real DynamoDB. */
    @PublicEvolving
    public static final class Builder {
        private Duration pollInterval = Duration.ofSeconds(2);
        private Duration activeTimeout = Duration.ofMinutes(10);
        private Duration initialBackoff = Duration.ofSeconds(1);
        private Duration maxBackoff = Duration.ofMinutes(1);
        private int maxAttempts = 10;
        private int maxDeferrals = 48;
        private Duration decreaseQuotaDelay;
        private int maxConcurrency = 4;

        private Builder() {}

        public Builder pollInterval(Duration value) {
            this.pollInterval = value;
            return this;
        }

        public Builder activeTimeout(Duration value) {
            this.activeTimeout = value;
            return this;
        }

        public Builder backoff(Duration initial, Duration max) {
            this.initialBackoff = initial;
            this.maxBackoff = max;
            return this;
        }

        public Builder maxAttempts(int value) {
            this.maxAttempts = value;
            return this;
        }

        public Builder maxDeferrals(int value) {
            this.maxDeferrals = value;
            return this;
        }

        public Builder decreaseQuotaDelay(Duration value) {
            this.decreaseQuotaDelay = value;
            return this;
        }

        public Builder maxConcurrency(int value) {
            this.maxConcurrency = value;
            return this;
        }

        public TableManagerSettings build() {
            positive(pollInterval, "pollInterval");
            positive(activeTimeout, "activeTimeout");
            positive(initialBackoff, "initialBackoff");
            positive(maxBackoff, "maxBackoff");
            Preconditions.checkArgument(
                    maxBackoff.compareTo(initialBackoff) >= 0,
                    "maxBackoff %s must not be shorter than initialBackoff %s",
                    maxBackoff,
                    initialBackoff);
            Preconditions.checkArgument(maxAttempts >= 1, "maxAttempts must be >= 1, was %s", maxAttempts);
            Preconditions.checkArgument(maxDeferrals >= 0, "maxDeferrals must be >= 0, was %s", maxDeferrals);
            if (decreaseQuotaDelay != null) {
                positive(decreaseQuotaDelay, "decreaseQuotaDelay");
            }
            Preconditions.checkArgument(maxConcurrency >= 1, "maxConcurrency must be >= 1, was %s", maxConcurrency);
            return new TableManagerSettings(this);
        }

        private static void positive(Duration d, String name) {
            Preconditions.checkArgument(
                    d != null && !d.isNegative() && !d.isZero(), "%s must be a positive duration, was %s", name, d);
        }
    }
}
