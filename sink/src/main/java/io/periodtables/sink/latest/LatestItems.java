package io.periodtables.sink.latest;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.LatestTable;
import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.core.item.ReadingItems;
import io.periodtables.core.item.WriteSharding;
import io.periodtables.core.period.TableNaming;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The latest table's view of a reading: which of two is newer, and the item a device's newest becomes. */
final class LatestItems {

    /**
     * A device's newest reading, and for a late one the watermark that named its late table; its
     * table and item are worked out only when it is sent.
     */
    record Newest(Reading reading, long lateAtMillis) {}

    private final TableNaming naming;
    private final ReadingItems items;
    private final Counter refused;

    LatestItems(PeriodTablesConfig config, Counter refused) {
        this.naming = config.naming();
        this.items = new ReadingItems(config);
        this.refused = refused;
    }

    /**
     * Sort keys order by event time first: the hash decides only between readings of one
     * millisecond. The same sort key again (an eventId resent) is not older: the last sent wins,
     * as in its table.
     */
    boolean older(Reading reading, Reading than) {
        return reading.eventMillis() < than.eventMillis()
                || (reading.eventMillis() == than.eventMillis()
                        && WriteSharding.sortKeyOf(reading).compareTo(WriteSharding.sortKeyOf(than)) < 0);
    }

    /**
     * The latest table's item of {@code newest}; null when it has none: the period-table sink
     * stores it as a rejection, or it exceeds DynamoDB's item size with the latest table's key
     * (counted as refused).
     */
    LatestTable.Latest latest(Newest newest) {
        Map<String, AttributeValue> item;
        String table;
        try {
            item = new HashMap<>(items.item(newest.reading()));
            table = newest.lateAtMillis() == SinkRecord.UNKNOWN
                    ? naming.periodTableOf(Instant.ofEpochMilli(newest.reading().eventMillis()))
                    : naming.lateTable(Instant.ofEpochMilli(newest.lateAtMillis()));
        } catch (IllegalArgumentException rejectedBySink) {
            return null; // the period-table sink stores it as a rejection, not a reading
        }
        String sortKey = item.remove(ItemAttributes.SK).s();
        item.remove(ItemAttributes.PK);
        item.remove(ItemAttributes.TTL);
        LatestTable.Latest latest = new LatestTable.Latest(newest.reading().deviceId(), sortKey, table, item);
        if (DynamoDbItemSize.of(latest.item()) > DynamoDbItemSize.MAX_ITEM_BYTES) {
            refused.inc(); // within 400 KB as a reading, above it with the latest table's key and table
            return null;
        }
        return latest;
    }
}
