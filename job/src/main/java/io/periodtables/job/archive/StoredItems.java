package io.periodtables.job.archive;

import io.periodtables.archive.ArchiveItems;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.ReadingItems;
import io.periodtables.model.Reading;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The archive's items are the sink's: {@link ReadingItems}, and none where the sink rejects the reading. */
@Internal
public final class StoredItems implements ArchiveItems {
    private static final long serialVersionUID = 1L;

    private final PeriodTablesConfig config;
    private transient ReadingItems items;

    public StoredItems(PeriodTablesConfig config) {
        this.config = config;
    }

    @Override
    public Map<String, AttributeValue> item(Reading reading) {
        if (items == null) {
            items = new ReadingItems(config);
        }
        try {
            return items.item(reading);
        } catch (IllegalArgumentException rejectedBySink) {
            return null;
        }
    }
}
