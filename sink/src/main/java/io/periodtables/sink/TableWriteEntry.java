package io.periodtables.sink;

import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.owner.MissingTableHandler;
import java.io.Serializable;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.util.Preconditions;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * One item on its way to one table: the request entry that {@link PeriodTableSink}'s writer
 * buffers, batches (up to 25 across tables), retries and keeps in checkpoints. It holds the
 * ready-made {@code PutRequest} (built once, reused by every attempt), the item's size by
 * DynamoDB's rules and how many attempts have failed so far.
 *
 * <p>Java serialization is never used for it: writer state goes through
 * {@link TableWriteEntrySerializer}.
 */
@Internal
public final class TableWriteEntry implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String table;
    private final transient WriteRequest request;
    private final long sizeBytes;
    private final int failedAttempts;
    private final transient Origin origin;
    private transient EntryKey key;

    /**
     * When and how an entry was made; not kept in state.
     *
     * @param mark the watermark the writer had seen when the entry was made: the entry does not
     *     count for any watermark after it ({@link AcknowledgedWatermark}); {@link Long#MIN_VALUE}
     *     for an entry restored from a checkpoint
     */
    record Origin(MissingTableHandler.Arrival arrival, long eventTime, long mark) {
        static final Origin UNKNOWN = new Origin(MissingTableHandler.Arrival.UNKNOWN, Long.MIN_VALUE, Long.MIN_VALUE);
    }

    TableWriteEntry(String table, Map<String, AttributeValue> item, long sizeBytes, int failedAttempts) {
        this(table, item, sizeBytes, failedAttempts, Origin.UNKNOWN);
    }

    TableWriteEntry(String table, Map<String, AttributeValue> item, long sizeBytes, int failedAttempts, Origin origin) {
        this(
                table,
                WriteRequest.builder()
                        .putRequest(PutRequest.builder().item(item).build())
                        .build(),
                sizeBytes,
                failedAttempts,
                origin);
    }

    private TableWriteEntry(String table, WriteRequest request, long sizeBytes, int failedAttempts, Origin origin) {
        this.table = Preconditions.checkNotNull(table, "table");
        this.request = request;
        this.sizeBytes = sizeBytes;
        this.failedAttempts = failedAttempts;
        this.origin = origin;
    }

    public String table() {
        return table;
    }

    public Map<String, AttributeValue> item() {
        return request.putRequest().item();
    }

    /** The request to put into {@code BatchWriteItem}'s {@code RequestItems} under {@link #table()}. */
    WriteRequest request() {
        return request;
    }

    public String pk() {
        return item().get(ItemAttributes.PK).s();
    }

    public String sk() {
        return item().get(ItemAttributes.SK).s();
    }

    /** The item's size by DynamoDB's rules ({@link DynamoDbItemSize}). */
    public long sizeBytes() {
        return sizeBytes;
    }

    /** Attempts that failed so far (0 for a new entry). */
    public int failedAttempts() {
        return failedAttempts;
    }

    /**
     * How the reading arrived and the sink's event time when the entry was made
     * ({@link EventClock}); {@link Origin#UNKNOWN} for an entry restored from a checkpoint.
     */
    Origin origin() {
        return origin == null ? Origin.UNKNOWN : origin;
    }

    /** The same entry after one more failed attempt. */
    TableWriteEntry failedOnce() {
        return new TableWriteEntry(table, request, sizeBytes, failedAttempts + 1, origin);
    }

    /** The same item for another table (the late table), with fresh attempts. */
    TableWriteEntry to(String otherTable) {
        return new TableWriteEntry(otherTable, request, sizeBytes, 0, origin);
    }

    /** The table and key that identify the item this entry writes. */
    EntryKey key() {
        EntryKey k = key;
        if (k == null) {
            k = new EntryKey(table, pk(), sk());
            key = k; // the writer thread asks several times per entry: deduplication, keys in flight
        }
        return k;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TableWriteEntry e
                && table.equals(e.table)
                && item().equals(e.item())
                && sizeBytes == e.sizeBytes
                && failedAttempts == e.failedAttempts;
    }

    @Override
    public int hashCode() {
        return 31 * table.hashCode() + item().hashCode();
    }

    @Override
    public String toString() {
        return table + "[pk=" + pk() + ", sk=" + sk() + ", " + sizeBytes + " bytes, " + failedAttempts
                + " failed attempts]";
    }

    /**
     * Table and item key of an entry: what DynamoDB refuses twice in one request. Its hash is
     * computed once: the writer looks every entry up several times (deduplication, keys in flight).
     */
    static final class EntryKey {
        private final String table;
        private final String pk;
        private final String sk;
        private final int hash;

        EntryKey(String table, String pk, String sk) {
            this.table = table;
            this.pk = pk;
            this.sk = sk;
            this.hash = (31 * table.hashCode() + pk.hashCode()) * 31 + sk.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof EntryKey k
                    && hash == k.hash
                    && pk.equals(k.pk)
                    && sk.equals(k.sk)
                    && table.equals(k.table);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public String toString() {
            return table + "[pk=" + pk + ", sk=" + sk + "]";
        }
    }
}
