package io.periodtables.sink;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInfo;
import org.apache.flink.util.Preconditions;

import java.util.Objects;

/**
 * What {@link PeriodTableSink} consumes: a reading for the table of its period (chosen from event
 * time), a reading for the late table (the UTC month in which the sink writes it), or a
 * rejection for the rejected table. Serialized by the explicit, versioned
 * {@link SinkRecordSerializer}.
 */
@PublicEvolving
@TypeInfo(SinkRecordSerializer.TypeFactory.class)
public final class SinkRecord {

    /** Which table a record goes to. */
    @PublicEvolving
    public enum Kind {
        /** The period table of the reading's event time. */
        PERIOD,
        /** The late table of the month the sink writes the reading in. */
        LATE,
        /** The rejected table. */
        REJECTED
    }

    private final Kind kind;
    private final Reading reading;
    private final Rejection rejection;

    private SinkRecord(Kind kind, Reading reading, Rejection rejection) {
        this.kind = kind;
        this.reading = reading;
        this.rejection = rejection;
    }

    /** A reading for the table of its period. */
    public static SinkRecord period(Reading reading) {
        return new SinkRecord(Kind.PERIOD, Preconditions.checkNotNull(reading, "reading"), null);
    }

    /** A reading that arrived after its period's grace, for the late table of the write month. */
    public static SinkRecord late(Reading reading) {
        return new SinkRecord(Kind.LATE, Preconditions.checkNotNull(reading, "reading"), null);
    }

    /** Input that cannot be stored as a reading, for the rejected table. */
    public static SinkRecord rejected(Rejection rejection) {
        return new SinkRecord(Kind.REJECTED, null, Preconditions.checkNotNull(rejection, "rejection"));
    }

    public Kind kind() {
        return kind;
    }

    /** The reading of a {@code PERIOD} or {@code LATE} record. */
    public Reading reading() {
        Preconditions.checkState(reading != null, "a %s record holds a rejection, not a reading", kind);
        return reading;
    }

    /** The rejection of a {@code REJECTED} record. */
    public Rejection rejection() {
        Preconditions.checkState(rejection != null, "a %s record holds a reading, not a rejection", kind);
        return rejection;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SinkRecord r && kind == r.kind
                && Objects.equals(reading, r.reading) && Objects.equals(rejection, r.rejection);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, reading, rejection);
    }

    @Override
    public String toString() {
        return kind + ":" + (reading != null ? reading : rejection);
    }
}
