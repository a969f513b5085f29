package io.periodtables.job;

import io.periodtables.model.SinkRecord;
import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The rollups tables' {@link LoadCounter}: per rollups table, one write unit per started KB of
 * each bucket item the rollups operator emits (its JSON, an upper bound of the item's DynamoDB
 * size), at the item's timestamp (the bucket end whose watermark wrote it; the watermark for a
 * catch-up write). Every device's bucket ends at the same watermark, so the peak is the burst the
 * next period's rollups table is prewarmed for.
 */
@Internal
final class RollupLoadCounter extends LoadCounter<SinkRecord> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(StreamRecord<SinkRecord> element) {
        SinkRecord record = element.getValue();
        long units = Math.max(1, (record.itemJson().length() + 1023) / 1024);
        count(record.table(), element.hasTimestamp() ? element.getTimestamp() : watermark, units);
    }
}
