package io.periodtables.sink;

import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.ItemBuilder;
import io.periodtables.core.owner.MissingTableHandler;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.model.Reading;
import io.periodtables.model.RejectReason;
import io.periodtables.model.Rejection;
import io.periodtables.model.SinkRecord;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.connector.base.sink.writer.ElementConverter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Turns a {@link SinkRecord} into the entry for its table: a period reading into its period's
 * table (event time), a late reading into the late table of the UTC month of the watermark that
 * made it late (records restored from serializer format 1 lack it: the injected clock's month),
 * a rejection into the rejected table. A reading whose item cannot be stored
 * (larger than 400 KB, reserved attribute name, payload not an object) becomes an entry for the
 * rejected table instead; it never reaches {@code BatchWriteItem}, and the writer's
 * {@code rejectedItems} counter counts it.
 *
 * <p>Runs on the writer's mailbox thread only; it remembers the last period's table, so
 * consecutive readings of one period cost no calendar arithmetic.
 */
final class SinkRecordConverter implements ElementConverter<SinkRecord, TableWriteEntry> {
    private static final long serialVersionUID = 1L;

    private final TableNaming naming;
    private final ItemBuilder items;
    private final Clock clock;
    private final long outOfOrdernessMillis;

    private transient Counter rejectedItems;
    private transient EventClock eventClock;
    private transient long cachedPeriodStart;
    private transient long cachedPeriodEnd;
    private transient String cachedPeriodTable;

    SinkRecordConverter(TableNaming naming, ItemBuilder items, Clock clock) {
        this(naming, items, clock, 0);
    }

    /** @param outOfOrdernessMillis {@code watermark.out-of-orderness}, for the event time before the first watermark */
    SinkRecordConverter(TableNaming naming, ItemBuilder items, Clock clock, long outOfOrdernessMillis) {
        this.naming = naming;
        this.items = items;
        this.clock = clock;
        this.outOfOrdernessMillis = outOfOrdernessMillis;
        this.rejectedItems = new SimpleCounter();
    }

    /**
     * The writer's {@code rejectedItems} counter, which then counts the items rejected here too.
     * The writer hands it over instead of Flink's {@code ElementConverter.open}, whose parameter
     * type Flink 2 changes.
     */
    void countRejectedIn(Counter writerCounter) {
        rejectedItems = writerCounter;
    }

    /** Counts the items rejected here; after {@link #countRejectedIn}, the writer's counter. */
    Counter rejectedItems() {
        return rejectedItems;
    }

    /** The writer's event time, which every entry carries (see {@link EventClock}). */
    EventClock eventClock() {
        if (eventClock == null) {
            eventClock = new EventClock(outOfOrdernessMillis);
        }
        return eventClock;
    }

    /**
     * {@code entry} for the late table of the month of the writer's event time (its watermark, see
     * {@link EventClock}), as late readings are routed; the injected clock's month before any is known.
     */
    TableWriteEntry lateEntry(TableWriteEntry entry) {
        long eventTime = eventClock().now();
        return entry.to(
                naming.lateTable(eventTime == Long.MIN_VALUE ? clock.instant() : Instant.ofEpochMilli(eventTime)));
    }

    @Override
    public TableWriteEntry apply(SinkRecord record, SinkWriter.Context context) {
        if (context != null) {
            eventClock().watermark(context.currentWatermark());
        }
        if (record.kind() == SinkRecord.Kind.PERIOD || record.kind() == SinkRecord.Kind.LATE) {
            eventClock().reading(record.reading().eventMillis());
        }
        return switch (record.kind()) {
            case PERIOD -> periodEntry(record.reading(), context == null ? null : context.timestamp());
            case LATE ->
                readingEntry(
                        naming.lateTable(
                                record.lateAtMillis() == SinkRecord.UNKNOWN
                                        ? clock.instant()
                                        : Instant.ofEpochMilli(record.lateAtMillis())),
                        record.reading());
            case REJECTED -> rejectionEntry(record.rejection());
            case ITEM -> itemEntry(record.table(), record.itemJson());
        };
    }

    /**
     * @param timestamp the record's Flink timestamp: the period windows stamp their results with
     *     the window's last millisecond, so a reading with that timestamp arrived on time and any
     *     other period reading late ({@code late.policy=period-table})
     */
    private TableWriteEntry periodEntry(Reading reading, Long timestamp) {
        long t = reading.eventMillis();
        if (t < cachedPeriodStart || t >= cachedPeriodEnd) {
            Period period;
            try {
                period = naming.calendar().periodOf(t);
            } catch (IllegalArgumentException outsideTableNames) {
                return rejected(Rejection.of(
                        RejectReason.BAD_TIMESTAMP,
                        outsideTableNames.getMessage(),
                        Rejection.readingText(reading, true),
                        clock.millis(),
                        "sink"));
            }
            cachedPeriodStart = period.startMillis();
            cachedPeriodEnd = period.endMillis();
            cachedPeriodTable = naming.periodTable(period);
        }
        MissingTableHandler.Arrival arrival = timestamp == null
                ? MissingTableHandler.Arrival.UNKNOWN
                : timestamp == cachedPeriodEnd - 1
                        ? MissingTableHandler.Arrival.ON_TIME
                        : MissingTableHandler.Arrival.LATE;
        return readingEntry(cachedPeriodTable, reading, arrival);
    }

    TableWriteEntry readingEntry(String table, Reading reading) {
        return readingEntry(table, reading, MissingTableHandler.Arrival.UNKNOWN);
    }

    private TableWriteEntry readingEntry(String table, Reading reading, MissingTableHandler.Arrival arrival) {
        Map<String, AttributeValue> item;
        try {
            item = items.readingItem(reading);
        } catch (ItemBuilder.UnstorableReadingException e) {
            boolean payloadIsJson = e.reason() != RejectReason.INVALID_JSON;
            return rejected(Rejection.of(
                    e.reason(),
                    e.getMessage() + " (table " + table + ")",
                    Rejection.readingText(reading, payloadIsJson),
                    clock.millis(),
                    table));
        }
        long size = DynamoDbItemSize.of(item);
        if (size > DynamoDbItemSize.MAX_ITEM_BYTES) {
            return rejected(Rejection.of(
                    RejectReason.ITEM_TOO_LARGE,
                    "item of " + size + " bytes exceeds DynamoDB's limit of " + DynamoDbItemSize.MAX_ITEM_BYTES
                            + " bytes (table " + table + ")",
                    Rejection.readingText(reading, true),
                    clock.millis(),
                    table));
        }
        return new TableWriteEntry(
                table,
                item,
                size,
                0,
                new TableWriteEntry.Origin(
                        arrival, eventClock().now(), eventClock().mark()));
    }

    /** A prebuilt item (a rollup bucket): built by the job, within DynamoDB's rules by construction. */
    private TableWriteEntry itemEntry(String table, String itemJson) {
        Map<String, AttributeValue> item;
        try {
            item = ItemAttributes.ofJsonObject(itemJson);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "a prebuilt item for " + table + " is not a JSON object: " + itemJson, e);
        }
        return new TableWriteEntry(
                table,
                item,
                DynamoDbItemSize.of(item),
                0,
                new TableWriteEntry.Origin(
                        MissingTableHandler.Arrival.UNKNOWN,
                        eventClock().now(),
                        eventClock().mark()));
    }

    private TableWriteEntry rejected(Rejection rejection) {
        rejectedItems.inc();
        return rejectionEntry(rejection);
    }

    TableWriteEntry rejectionEntry(Rejection rejection) {
        Map<String, AttributeValue> item = items.rejectionItem(rejection);
        return new TableWriteEntry(
                naming.rejectedTable(),
                item,
                DynamoDbItemSize.of(item),
                0,
                new TableWriteEntry.Origin(
                        MissingTableHandler.Arrival.UNKNOWN,
                        Long.MIN_VALUE,
                        eventClock().mark()));
    }
}
