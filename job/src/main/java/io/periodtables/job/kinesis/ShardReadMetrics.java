package io.periodtables.job.kinesis;

import io.periodtables.core.config.UserMetrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * A source subtask's read metrics: {@code throttledReads}, the GetRecords and GetShardIterator
 * calls Kinesis refused (counted once each, every refusal is retried by the reader), and
 * {@code millisBehindLatest}, the largest of its shards' distance from the stream's tip as the
 * last GetRecords of each said (0 when every shard is read up to the tip, -1 before the first), and
 * {@code positionsTrimmed}, the shards whose restored position the stream had trimmed, or that
 * Kinesis had deleted (a closed shard past the stream's retention).
 */
final class ShardReadMetrics {
    private final Counter throttled;
    private final Counter trimmed;
    private final Map<String, Long> behind = new ConcurrentHashMap<>();

    /** Registers the metrics in the reader's {@link UserMetrics} group. */
    ShardReadMetrics(MetricGroup readerGroup) {
        MetricGroup group = UserMetrics.of(readerGroup);
        this.throttled = group.counter(UserMetrics.THROTTLED_READS);
        this.trimmed = group.counter(UserMetrics.POSITIONS_TRIMMED);
        group.gauge(UserMetrics.MILLIS_BEHIND_LATEST, this::millisBehindLatest);
    }

    void throttled() {
        throttled.inc();
    }

    void trimmed() {
        trimmed.inc();
    }

    long positionsTrimmed() {
        return trimmed.getCount();
    }

    void behindLatest(String splitId, long millis) {
        behind.put(splitId, millis);
    }

    void finished(String splitId) {
        behind.remove(splitId);
    }

    long millisBehindLatest() {
        return behind.values().stream().mapToLong(Long::longValue).max().orElse(-1);
    }

    long throttledReads() {
        return throttled.getCount();
    }
}
