package io.periodtables.job.rotation;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.item.ReadingItems;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.TableNaming;
import io.periodtables.model.Reading;
import java.time.Duration;
import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The period tables' {@link LoadCounter}: per period table, the write units ({@link
 * DynamoDbItemSize}, one per started KB) of the items of the readings that go to the period
 * windows (the readings the windows will drop as late, and those the sink rejects, are not
 * counted). It sits before the windows, not after them: the windows release readings when their
 * trigger fires, after the watermark may have passed their second, while before them every
 * reading of a second precedes the watermark that passes it.
 */
@Internal
public final class WriteLoadCounter extends LoadCounter<Reading> {
    private static final long serialVersionUID = 1L;

    private final PeriodTablesConfig config;
    private transient TableNaming naming;
    private transient ReadingItems items;
    private transient PeriodCalendar calendar;
    private transient Duration lateness;
    /** The last reading's period and its table name: readings come in runs of one period. */
    private transient Period lastPeriod;

    private transient String lastTable;

    public WriteLoadCounter(PeriodTablesConfig config) {
        this.config = config;
    }

    @Override
    public void open() throws Exception {
        super.open();
        naming = config.naming();
        calendar = config.calendar();
        lateness = config.get(ConfigKeys.ALLOWED_LATENESS);
        items = new ReadingItems(config);
    }

    @Override
    public void processElement(StreamRecord<Reading> element) {
        Reading reading = element.getValue();
        long millis = reading.eventMillis();
        Period period = calendar.periodOf(millis);
        if (period.closedBy(watermark, lateness)) {
            return; // the windows route it to the late table (on-demand), as Flink's window lateness
        }
        long units = items.writeUnits(reading);
        if (units == 0) {
            return; // the sink writes it to the rejected table (on-demand) instead
        }
        if (!period.equals(lastPeriod)) {
            lastPeriod = period;
            lastTable = naming.periodTable(period);
        }
        count(lastTable, millis, units);
    }
}
