package io.periodtables.emulators;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One line of the {@link DynamoDbFaults} script: which calls it matches (an operation, optionally
 * a table), which of the matching calls it hits ({@link Builder#every every n-th} or the
 * {@link Builder#first first n}, at most {@link Builder#limit limit} times) and the fault. Built
 * with {@code DynamoDbFaults.on("BatchWriteItem")...}; the terminal method (e.g.
 * {@link Builder#throttle()}) adds the rule to the script and returns it, so a test can ask how
 * often it fired.
 */
public final class FaultRule {
    private final String operation;
    private final String table;
    private final boolean everyNth;
    private final long n;
    private final long limit;
    private final FaultKind kind;
    private final Duration delay;
    private final double fraction;
    private final AtomicLong matched = new AtomicLong();
    private final AtomicLong injected = new AtomicLong();

    private FaultRule(Builder b, FaultKind kind, Duration delay, double fraction) {
        this.operation = b.operation;
        this.table = b.table;
        this.everyNth = b.everyNth;
        this.n = b.n;
        this.limit = b.limit;
        this.kind = kind;
        this.delay = delay;
        this.fraction = fraction;
    }

    public FaultKind kind() {
        return kind;
    }

    /** How many calls matched the operation and table so far. */
    public long matched() {
        return matched.get();
    }

    /** How many times this rule injected its fault so far. */
    public long injected() {
        return injected.get();
    }

    Duration delay() {
        return delay;
    }

    double fraction() {
        return fraction;
    }

    /**
     * Counts a matching call and says whether this rule would hit it. Every rule counts every
     * call it matches, also when an earlier rule of the script takes the call; callers serialize.
     */
    boolean hits(String op, List<String> tables) {
        if (!operation.equals(op) || (table != null && !tables.contains(table))) {
            return false;
        }
        long nth = matched.incrementAndGet();
        boolean selected = everyNth ? nth % n == 0 : nth <= n;
        return selected && injected.get() < limit;
    }

    /** Records that this rule's fault was injected into the call it hit. */
    void injectedOnce() {
        injected.incrementAndGet();
    }

    @Override
    public String toString() {
        return kind + " on " + operation + (table == null ? "" : " to " + table)
                + (everyNth ? " every " + n : " first " + n) + (limit == Long.MAX_VALUE ? "" : " limit " + limit);
    }

    /** Chooses the calls a rule hits; ends with the fault, which installs the rule. */
    public static final class Builder {
        private final String operation;
        private String table;
        private boolean everyNth = true;
        private long n = 1;
        private long limit = Long.MAX_VALUE;

        Builder(String operation) {
            this.operation = Objects.requireNonNull(operation, "operation");
        }

        /** Only calls naming this table (for BatchWriteItem: among its tables). */
        public Builder table(String tableName) {
            this.table = Objects.requireNonNull(tableName, "tableName");
            return this;
        }

        /** The n-th, 2n-th, 3n-th ... matching call (the default is every call). */
        public Builder every(long n) {
            checkPositive(n, "every");
            this.everyNth = true;
            this.n = n;
            return this;
        }

        /** Every matching call; same as {@code every(1)}. */
        public Builder always() {
            return every(1);
        }

        /** The first n matching calls. */
        public Builder first(long n) {
            checkPositive(n, "first");
            this.everyNth = false;
            this.n = n;
            return this;
        }

        /** The first matching call only. */
        public Builder once() {
            return first(1);
        }

        /** At most this many injections in total. */
        public Builder limit(long maxInjections) {
            checkPositive(maxInjections, "limit");
            this.limit = maxInjections;
            return this;
        }

        public FaultRule throttle() {
            return install(FaultKind.PROVISIONED_THROUGHPUT_EXCEEDED);
        }

        public FaultRule throttling() {
            return install(FaultKind.THROTTLING);
        }

        /**
         * BatchWriteItem only: the last {@code ceil(fraction × items)} write requests (at least
         * one, in request order across tables) are not sent and come back as UnprocessedItems.
         */
        public FaultRule unprocessed(double fraction) {
            if (!"BatchWriteItem".equals(operation)) {
                throw new IllegalArgumentException("unprocessed items exist only for BatchWriteItem, not " + operation);
            }
            if (!(fraction > 0 && fraction <= 1)) {
                throw new IllegalArgumentException("unprocessed fraction must be in (0, 1], got " + fraction);
            }
            return FaultScript.add(new FaultRule(this, FaultKind.UNPROCESSED_ITEMS, null, fraction));
        }

        public FaultRule internalServerError() {
            return install(FaultKind.INTERNAL_SERVER_ERROR);
        }

        public FaultRule serviceUnavailable() {
            return install(FaultKind.SERVICE_UNAVAILABLE);
        }

        /** Holds the call for {@code delay}, then executes it for real (even if the client gave up). */
        public FaultRule delay(Duration delay) {
            if (delay.isNegative() || delay.isZero()) {
                throw new IllegalArgumentException("delay must be positive, got " + delay);
            }
            return FaultScript.add(new FaultRule(this, FaultKind.DELAY, delay, 0));
        }

        public FaultRule connectionReset() {
            return install(FaultKind.CONNECTION_RESET);
        }

        public FaultRule limitExceeded() {
            return install(FaultKind.LIMIT_EXCEEDED);
        }

        public FaultRule resourceInUse() {
            return install(FaultKind.RESOURCE_IN_USE);
        }

        public FaultRule ttlAlreadyEnabled() {
            return install(FaultKind.TTL_ALREADY_ENABLED);
        }

        /** Any of the error-response kinds or {@link FaultKind#CONNECTION_RESET}. */
        public FaultRule fail(FaultKind kind) {
            if (!kind.isErrorResponse() && kind != FaultKind.CONNECTION_RESET) {
                throw new IllegalArgumentException(kind + " is not a failure; use unprocessed(...) or delay(...)");
            }
            return install(kind);
        }

        private FaultRule install(FaultKind kind) {
            return FaultScript.add(new FaultRule(this, kind, null, 0));
        }

        private static void checkPositive(long value, String what) {
            if (value < 1) {
                throw new IllegalArgumentException(what + " must be at least 1, got " + value);
            }
        }
    }
}
