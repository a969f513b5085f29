package io.periodtables.emulators;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The control side of the Kinesis fidelity layer in front of a {@link Kinesalite} ({@code
 * kinesalite.js}, {@code /__fidelity}): which of Kinesis's per-shard limits it enforces, the other
 * consumer applications of a stream that share its read limits, its clock (which kinesalite reads
 * too: sequence numbers, the 5-minute iterator expiry, retention), and the counters of what it
 * served and refused. docs/DESIGN.md quotes the documentation each rule follows.
 */
public final class KinesisLayer {
    /** A limit of Kinesis's that the layer enforces, per shard. */
    public enum Limit {
        /**
         * GetRecords: 5 calls a second (shared with the declared other consumers), 2 MiB a second (10 MiB: the
         * next 5 s).
         */
        READS("reads"),
        /** GetShardIterator: 5 calls a second. */
        ITERATORS("iterators"),
        /** PutRecord / PutRecords: 1,000 records and 1 MiB a second. */
        WRITES("writes"),
        /** UpdateShardCount: 10 a rolling 24 h per stream, at most double, at least half the open shards. */
        SCALING("scaling");

        private final String wire;

        Limit(String wire) {
            this.wire = wire;
        }

        static String wire(Set<Limit> limits) {
            return limits.isEmpty() ? "none" : limits.stream().map(l -> l.wire).collect(Collectors.joining(","));
        }
    }

    /** At most this many other consumers a stream: each takes one of a shard's 5 GetRecords calls a second. */
    public static final int MAX_OTHER_CONSUMERS = 4;

    private final LayerControl control;

    KinesisLayer(URI endpoint) {
        this.control = new LayerControl(endpoint);
    }

    /** The limits enforced from now on. */
    public void limits(Set<Limit> limits) {
        control.send("{\"limits\":\"" + Limit.wire(limits) + "\"}");
    }

    /** The limits in force now. */
    public Set<Limit> limits() {
        Set<Limit> limits = EnumSet.noneOf(Limit.class);
        control.state()
                .get("limits")
                .forEach(l -> limits.add(Limit.valueOf(l.asText().toUpperCase(Locale.ROOT))));
        return limits;
    }

    /**
     * Declares {@code count} other consumer applications of {@code stream} (0 to {@value
     * #MAX_OTHER_CONSUMERS}; 0 removes them). Each polls every shard of the stream once a second and
     * keeps up with it, as a classic (shared-throughput) consumer at the stream's tip does: each
     * takes one of a shard's 5 GetRecords calls a second, and reads every byte put into the shard,
     * which counts against the shard's 2 MiB a second. A consumer that also reads a backlog is a
     * second real consumer: run one (the layer counts every caller's calls).
     */
    public void otherConsumers(String stream, int count) {
        control.send("{\"otherConsumers\":{\"stream\":" + LayerControl.quoted(stream) + ",\"count\":" + count + "}}");
    }

    /** Moves the layer's clock ahead (the limits' seconds, iterator expiry, retention, sequence numbers' times). */
    public void advanceClock(Duration by) {
        control.send("{\"advanceClockMs\":" + by.toMillis() + "}");
    }

    /**
     * Stops the layer's clock: no second ends, no iterator expires, until {@link #startClock} or
     * {@link #reset}, so a test's counts hold however fast the machine runs it; move it with {@link
     * #advanceClock}. A GetRecords call that returned records holds the shard until the clock moves.
     */
    public void stopClock() {
        control.send("{\"stopClock\":true}");
    }

    /** Lets a stopped clock run again; it catches up with the time it stood still. */
    public void startClock() {
        control.send("{\"stopClock\":false}");
    }

    /** The layer's clock now. */
    public Instant now() {
        return Instant.ofEpochMilli(control.state().get("now").asLong());
    }

    /**
     * Back to the limits it was started with, no other consumers, every shard's rates and the
     * counters from zero; a stopped clock runs again (an advanced one stays ahead).
     */
    public void reset() {
        control.send("{\"reset\":true}");
    }

    /**
     * What the layer refused so far: {@code refusedGetRecords} (of which {@code
     * refusedGetRecordsByCalls}: the shard's 5 calls a second, {@code refusedGetRecordsByBytes}: its 2
     * MiB a second), {@code refusedGetShardIterator}, {@code refusedRecords} (records of PutRecord and
     * PutRecords), {@code refusedPutRecord} (PutRecord calls), {@code refusedScaling} (UpdateShardCount).
     */
    public long refused(String counter) {
        return control.counter(counter);
    }

    /**
     * What the layer served so far: {@code getRecords} (calls), {@code getRecordsBytes} (data and
     * partition keys returned), {@code getShardIterator}, {@code putRecords} (records put), {@code putRecordsCalls}
     * (PutRecords requests the layer judged, whatever it refused of them), {@code putBytes},
     * {@code listShards}
     * (calls, every caller's: a job's shard discovery among them).
     */
    public long served(String counter) {
        return control.counter(counter);
    }
}
