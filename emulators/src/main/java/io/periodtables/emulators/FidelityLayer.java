package io.periodtables.emulators;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The control side of the DynamoDB fidelity layer in front of a {@link Dynalite} ({@code dynalite.js},
 * {@code /__fidelity}): which of DynamoDB's limits it enforces, the burst and the table and
 * per-table throughput quotas it uses,
 * its clock, and the counters of what it refused. Tests change these; the emulator's process is
 * {@link Dynalite}'s.
 */
public final class FidelityLayer {
    /** A limit of DynamoDB's that the fidelity layer enforces; docs/DESIGN.md quotes the documentation of each. */
    public enum Limit {
        /**
         * A provisioned table's WCU and RCU as token buckets saving up 300 s, starting with one second;
         * at most the per-table quota (40,000 each, LimitExceededException).
         */
        THROUGHPUT("throughput"),
        /**
         * An on-demand table serves twice its previous peak (new: 4,000 writes / 12,000 reads a second), a
         * peak counting 30 minutes later, at most the per-table quota (40,000 each); OnDemandThroughput
         * and WarmThroughput above that quota are refused (as {@link #aboveTableQuota} picks).
         */
        ON_DEMAND("on-demand"),
        /** One partition key value serves at most 1,000 write or 3,000 read units a second. */
        PARTITIONS("partitions"),
        /**
         * 4 capacity decreases a UTC day, then one more when none was in the past hour, at most 27
         * (LimitExceededException).
         */
        DECREASES("decreases"),
        /**
         * Provisioned to on-demand 4 times in a rolling 24 h; 2 table class changes in 30 days
         * (LimitExceededException).
         */
        SWITCHES("switches"),
        /** The account's table quota (2,500 by default). */
        TABLES("tables");

        private final String wire;

        Limit(String wire) {
            this.wire = wire;
        }

        public String wire() {
            return wire;
        }

        static String wire(Set<Limit> limits) {
            return limits.isEmpty() ? "none" : limits.stream().map(Limit::wire).collect(Collectors.joining(","));
        }
    }

    /**
     * What the layer answers a CreateTable or UpdateTable whose {@code WarmThroughput} or {@code
     * OnDemandThroughput} is above the per-table quota: DynamoDB's documentation bounds both by that
     * quota and names no answer (docs/DESIGN.md), so a test picks each plausible one.
     */
    public enum AboveTableQuota {
        /** {@code LimitExceededException}, as DynamoDB answers its other quotas on a table change; the default. */
        LIMIT_EXCEEDED("LimitExceededException"),
        /** {@code ValidationException}, as DynamoDB answers a parameter out of its range. */
        VALIDATION("ValidationException"),
        /** Accepted and reported as given; an on-demand table still serves at most the quota. */
        ACCEPTED("accepted");

        private final String wire;

        AboveTableQuota(String wire) {
            this.wire = wire;
        }

        public String wire() {
            return wire;
        }
    }

    private final LayerControl control;

    FidelityLayer(URI endpoint) {
        this.control = new LayerControl(endpoint);
    }

    /** The limits enforced from now on. */
    public void limits(Set<Limit> limits) {
        control("{\"limits\":\"" + Limit.wire(limits) + "\"}");
    }

    /** How much unused provisioned capacity a table saves up (DynamoDB: 300 s, the default). */
    public void burst(Duration burst) {
        control("{\"burstSeconds\":" + burst.toMillis() / 1000.0 + "}");
    }

    /**
     * How long a table stays CREATING, UPDATING or DELETING on the layer's clock (default 500 ms
     * each; zero: at once). A test that shortens it says why next to the call.
     */
    public void tableStates(Duration each) {
        control("{\"transitionMs\":" + each.toMillis() + "}");
    }

    /** The account's table quota (default 2,500). */
    public void maxTables(int tables) {
        control("{\"maxTables\":" + tables + "}");
    }

    /**
     * The per-table throughput quota, in read and in write units a second (default 40,000): a
     * raised quota, or a lowered one that a test reaches with little traffic.
     */
    public void maxTableUnits(long units) {
        control("{\"maxTableUnits\":" + units + "}");
    }

    /** The answer to a warm or maximum on-demand throughput above the per-table quota, until {@link #reset}. */
    public void aboveTableQuota(AboveTableQuota answer) {
        control("{\"aboveTableQuota\":\"" + answer.wire() + "\"}");
    }

    /**
     * Answers the named operations (e.g. {@code ListTables}) with {@code AccessDeniedException} naming
     * the action, as DynamoDB answers a caller whose policy does not allow it, until {@link #reset}; none:
     * allowed again.
     */
    public void deny(String... operations) {
        StringBuilder list = new StringBuilder();
        for (String operation : operations) {
            list.append(list.length() == 0 ? "" : ",")
                    .append('"')
                    .append(operation)
                    .append('"');
        }
        control("{\"deny\":[" + list + "]}");
    }

    /**
     * Moves the layer's clock ahead (table states, the quotas' hours and days, TTL's hour, token
     * refills, on-demand peaks settling after 30 minutes).
     */
    public void advanceClock(Duration by) {
        control("{\"advanceClockMs\":" + by.toMillis() + "}");
    }

    /**
     * Stops the layer's clock: no token refills, no new second of on-demand traffic, no table state
     * ending, until {@link #startClock} or {@link #reset}, so a test's rates hold however fast the
     * machine runs it; move it with {@link #advanceClock}.
     */
    public void stopClock() {
        control("{\"stopClock\":true}");
    }

    /** Lets a stopped clock run again; it catches up with the time it stood still. */
    public void startClock() {
        control("{\"stopClock\":false}");
    }

    /** The layer's clock now (this machine's, moved ahead, or where it was stopped). */
    public Instant now() {
        return Instant.ofEpochMilli(state().get("now").asLong());
    }

    /** How far {@link #advanceClock} has moved the layer's clock ahead of this machine's. */
    public Duration clockOffset() {
        return Duration.ofMillis(state().get("clockOffsetMs").asLong());
    }

    /**
     * Back to the limits, burst, table states and quotas it was started with; counters to zero; a stopped
     * clock runs again (an advanced one stays ahead).
     */
    public void reset() {
        control("{\"reset\":true}");
    }

    /** The limits in force now. */
    public Set<Limit> limits() {
        Set<Limit> limits = EnumSet.noneOf(Limit.class);
        state().get("limits")
                .forEach(l -> limits.add(
                        Limit.valueOf(l.asText().toUpperCase(Locale.ROOT).replace('-', '_'))));
        return limits;
    }

    /**
     * What the layer refused so far: {@code throttledWrites} (writes held back or failed for
     * throughput), {@code throttledReads}, {@code throttledCalls}, {@code throttledByPartition}
     * (writes a hot partition key held back), {@code refusedDecreases}, {@code refusedSwitches},
     * {@code refusedTables}, {@code refusedTableUnits} (settings above the per-table throughput quota),
     * {@code refusedTtlChanges}, {@code refusedBatches}, {@code refusedItems},
     * {@code refusedWhileBusy} (changes of a table not ACTIVE), {@code notYetActive} (item calls
     * on a CREATING table).
     */
    public long refused(String counter) {
        return control.counter(counter);
    }

    private JsonNode state() {
        return control.state();
    }

    private JsonNode control(String change) {
        return control.send(change);
    }
}
