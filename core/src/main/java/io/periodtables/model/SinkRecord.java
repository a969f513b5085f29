package io.periodtables.model;

import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInfo;
import org.apache.flink.util.Preconditions;

/**
 * What the period-table sink consumes, and what the job's source yields: a reading for the table
 * of its period (chosen from event time), a reading for the late table (the UTC month of the
 * event-time watermark that made it late), a rejection for the rejected table, or a prebuilt item
 * for a named table (rollups). Serialized by
 * the explicit, versioned {@link SinkRecordSerializer}.
 */
@PublicEvolving
@TypeInfo(SinkRecordSerializer.TypeFactory.class)
public final class SinkRecord {

    /** Which table a record goes to. */
    @PublicEvolving
    public enum Kind {
        /** The period table of the reading's event time. */
        PERIOD,
        /** The late table of the month of {@link #lateAtMillis()}. */
        LATE,
        /** The rejected table. */
        REJECTED,
        /** A prebuilt item for a named table: a rollup bucket ({@code io.periodtables.core.item.Rollups}). */
        ITEM
    }

    private final Kind kind;
    private final Reading reading;
    private final Rejection rejection;
    private final long lateAtMillis;
    private final String table;
    private final String itemJson;

    private SinkRecord(Kind kind, Reading reading, Rejection rejection, long lateAtMillis) {
        this(kind, reading, rejection, lateAtMillis, null, null);
    }

    private SinkRecord(
            Kind kind, Reading reading, Rejection rejection, long lateAtMillis, String table, String itemJson) {
        this.kind = kind;
        this.reading = reading;
        this.rejection = rejection;
        this.lateAtMillis = lateAtMillis;
        this.table = table;
        this.itemJson = itemJson;
    }

    /**
     * A prebuilt item for {@code table}, as the JSON object {@code io.periodtables.core.item.ItemAttributes}
     * reads (S, N and M attributes only): rollup buckets, which the job builds itself.
     */
    public static SinkRecord item(String table, String itemJson) {
        return new SinkRecord(
                Kind.ITEM,
                null,
                null,
                UNKNOWN,
                Preconditions.checkNotNull(table, "table"),
                Preconditions.checkNotNull(itemJson, "itemJson"));
    }

    /** A reading for the table of its period. */
    public static SinkRecord period(Reading reading) {
        return new SinkRecord(Kind.PERIOD, Preconditions.checkNotNull(reading, "reading"), null, UNKNOWN);
    }

    /**
     * A reading that arrived after its period's grace, for the late table of the UTC month of
     * {@code watermarkMillis}, the event-time watermark that made it late: the same table however
     * often and whenever the input is replayed.
     */
    public static SinkRecord late(Reading reading, long watermarkMillis) {
        return new SinkRecord(Kind.LATE, Preconditions.checkNotNull(reading, "reading"), null, watermarkMillis);
    }

    /** Marks a late record of serializer format 1, which did not carry its watermark. */
    public static final long UNKNOWN = Long.MIN_VALUE;

    /** Input that cannot be stored as a reading, for the rejected table. */
    public static SinkRecord rejected(Rejection rejection) {
        return new SinkRecord(Kind.REJECTED, null, Preconditions.checkNotNull(rejection, "rejection"), UNKNOWN);
    }

    public Kind kind() {
        return kind;
    }

    /** The reading of a {@code PERIOD} or {@code LATE} record. */
    public Reading reading() {
        Preconditions.checkState(reading != null, "a %s record holds a rejection, not a reading", kind);
        return reading;
    }

    /**
     * For a {@code LATE} record: the watermark that made the reading late, which names its late
     * table; {@link #UNKNOWN} for one restored from format 1 (the sink then uses its clock).
     */
    public long lateAtMillis() {
        return lateAtMillis;
    }

    /** The table of an {@code ITEM} record. */
    public String table() {
        Preconditions.checkState(table != null, "a %s record names no table", kind);
        return table;
    }

    /** The item of an {@code ITEM} record, as a JSON object. */
    public String itemJson() {
        Preconditions.checkState(itemJson != null, "a %s record holds no prebuilt item", kind);
        return itemJson;
    }

    /** The rejection of a {@code REJECTED} record. */
    public Rejection rejection() {
        Preconditions.checkState(rejection != null, "a %s record holds a reading, not a rejection", kind);
        return rejection;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SinkRecord r
                && kind == r.kind
                && lateAtMillis == r.lateAtMillis
                && Objects.equals(reading, r.reading)
                && Objects.equals(rejection, r.rejection)
                && Objects.equals(table, r.table)
                && Objects.equals(itemJson, r.itemJson);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, reading, rejection, lateAtMillis, table, itemJson);
    }

    @Override
    public String toString() {
        return kind + ":" + (reading != null ? reading : rejection != null ? rejection : table + " " + itemJson);
    }
}
