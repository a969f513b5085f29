package io.periodtables.job.kinesis;

import java.util.List;
import org.apache.flink.api.connector.source.SourceEvent;

/** What a source reader tells {@link ParentsFirstEnumerator} about its shards. */
final class ShardEvents {
    private ShardEvents() {}

    /** The reader reads these splits (restored from a checkpoint, or just assigned). */
    record Reading(List<String> splitIds) implements SourceEvent {
        private static final long serialVersionUID = 1L;
    }

    /** The reader read these splits to their end: closed shards, after a reshard. */
    record Finished(List<String> splitIds) implements SourceEvent {
        private static final long serialVersionUID = 1L;
    }
}
