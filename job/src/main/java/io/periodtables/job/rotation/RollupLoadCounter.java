package io.periodtables.job.rotation;

import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.item.ItemAttributes;
import io.periodtables.model.SinkRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The rollups tables' {@link LoadCounter}: per rollups table, one write unit per started KB of
 * each bucket item the rollups operator emits (its size by DynamoDB's rules, {@link
 * DynamoDbItemSize}, as the sink checks it), at the item's timestamp (the bucket end whose
 * watermark wrote it; the watermark for a catch-up write). Every device's bucket ends at the same
 * watermark, so the peak is the burst the next period's rollups table is prewarmed for.
 */
@Internal
public final class RollupLoadCounter extends LoadCounter<SinkRecord> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(StreamRecord<SinkRecord> element) {
        SinkRecord record = element.getValue();
        long units = Math.max(1, (itemBytes(record) + 1023) / 1024);
        count(record.table(), element.hasTimestamp() ? element.getTimestamp() : watermark, units);
    }

    private static long itemBytes(SinkRecord record) {
        try {
            return DynamoDbItemSize.of(ItemAttributes.ofJsonObject(record.itemJson()));
        } catch (IOException e) {
            throw new UncheckedIOException("a rollup item for " + record.table() + " is not a JSON object", e);
        }
    }
}
