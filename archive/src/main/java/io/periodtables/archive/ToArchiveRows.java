package io.periodtables.archive;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.EndOfInput;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.model.SinkRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Turns the records the period-table sink receives into archive rows: a period reading into a row
 * of {@code period=<label>/}, a late reading into one of {@code late=<yyyy-MM>/} (the month of the
 * watermark that made it late, as its late table), each holding exactly the item the sink stores;
 * rejections, and readings the sink turns into rejections, have no row.
 *
 * <p>It counts the rows of each period and, once its watermark has passed the period's end plus
 * the allowed lateness (after which the window operator emits nothing for that period), sends the
 * count to {@link #PERIOD_ROWS}. The counts are checkpointed with the same barrier as the file
 * sink's state behind it, so after a restore they describe exactly the rows the sink will commit.
 * The watermark that ends the input seals nothing: a drained stop leaves the periods it did not
 * close unmarked, and a run resumed from its savepoint completes them.
 */
@Internal
final class ToArchiveRows extends AbstractStreamOperator<ArchiveRow>
        implements OneInputStreamOperator<SinkRecord, ArchiveRow> {
    private static final long serialVersionUID = 1L;

    /** Per subtask and sealed period: the rows this subtask sent to the period's folder. */
    static final OutputTag<PeriodRows> PERIOD_ROWS =
            new OutputTag<>("archive-period-rows", TypeInformation.of(PeriodRows.class));

    private final PeriodCalendar calendar;
    private final Duration allowedLateness;
    private final ArchiveItems items;

    private transient ListState<Tuple2<Long, Long>> state;
    private transient TreeMap<Long, Long> rowsByPeriod;

    ToArchiveRows(PeriodTablesConfig config, ArchiveItems items) {
        this.calendar = config.calendar();
        this.allowedLateness = config.get(ConfigKeys.ALLOWED_LATENESS);
        this.items = items;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        state = context.getOperatorStateStore()
                .getListState(
                        new ListStateDescriptor<>("archive-rows-per-period", Types.TUPLE(Types.LONG, Types.LONG)));
        rowsByPeriod = new TreeMap<>();
        for (Tuple2<Long, Long> entry : state.get()) {
            rowsByPeriod.merge(entry.f0, entry.f1, Long::sum);
        }
    }

    @Override
    public void processElement(StreamRecord<SinkRecord> element) {
        SinkRecord record = element.getValue();
        if (record.kind() == SinkRecord.Kind.REJECTED) {
            return;
        }
        Map<String, AttributeValue> item = items.item(record.reading());
        if (item == null) {
            return;
        }
        String partition;
        if (record.kind() == SinkRecord.Kind.PERIOD) {
            Period period = periodOf(record.reading().eventMillis());
            if (period == null) {
                return; // no table name for this time: the sink rejects it
            }
            rowsByPeriod.merge(period.startMillis(), 1L, Long::sum);
            partition = ArchivePartitions.period(period);
        } else {
            // A record restored from serializer format 1 lacks its watermark; the sink then uses its clock.
            long lateAt = record.lateAtMillis() == SinkRecord.UNKNOWN
                    ? getProcessingTimeService().getCurrentProcessingTime()
                    : record.lateAtMillis();
            partition = ArchivePartitions.late(Instant.ofEpochMilli(lateAt));
        }
        output.collect(element.replace(ArchiveRow.of(partition, record.reading(), item)));
    }

    private Period periodOf(long eventMillis) {
        try {
            return calendar.periodOf(eventMillis); // the calendar answers a run of one period from its last one
        } catch (IllegalArgumentException outsideTableNames) {
            return null;
        }
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (EndOfInput.is(mark.getTimestamp())) {
            // The end of the input (a drained stop, a bounded source) closes no period: a resume
            // from the savepoint goes on with these counts, and only a watermark of the input's
            // own seals a period.
            super.processWatermark(mark);
            return;
        }
        Iterator<Map.Entry<Long, Long>> it = rowsByPeriod.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Long, Long> entry = it.next();
            if (!calendar.periodOf(entry.getKey()).closedBy(mark.getTimestamp(), allowedLateness)) {
                break; // later periods are sealed later
            }
            output.collect(PERIOD_ROWS, new StreamRecord<>(new PeriodRows(entry.getKey(), entry.getValue())));
            it.remove();
        }
        super.processWatermark(mark);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        List<Tuple2<Long, Long>> entries = new ArrayList<>();
        rowsByPeriod.forEach((start, rows) -> entries.add(Tuple2.of(start, rows)));
        state.update(entries);
    }
}
