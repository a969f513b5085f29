package io.periodtables.sink;

import io.periodtables.core.config.UserMetrics;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;

/**
 * The sink's metrics on its writer's metric group. Counters are thread-safe because responses
 * complete on SDK threads. Send latency is published as gauges (the last value and a moving
 * average) rather than a histogram, which Managed Service for Apache Flink cannot export.
 *
 * <ul>
 *   <li>{@code recordsWritten}, and per table {@code table.<name>.recordsWritten} (created on
 *       first write: one counter per table this subtask wrote since it started);
 *   <li>{@code batches}: {@code BatchWriteItem} calls, bisection halves included;
 *   <li>{@code unprocessedItemsRetried}, {@code throttledRequests}, {@code failedRequests}
 *       (any other retried failure), {@code bisections}, {@code rejectedItems} (items the
 *       sink sent to the rejected table: too large, refused by DynamoDB, ...), {@code missingTableFallbacks}
 *       (writes that found their table missing and had it created), {@code readingsRerouted}
 *       (readings sent to the late or rejected table because their period table was missing and
 *       its period closed or not yet open), {@code closedTableRaises} (closed tables this writer had
 *       raised back as a fallback after throttling it for a minute: should stay 0), {@code
 *       onDemandCeilingThrottles} (throttled calls DynamoDB attributed to a table's on-demand ceiling);
 *   <li>{@code lastSendLatencyMs}, {@code avgSendLatencyMs} (exponentially weighted, 1/8);
 *   <li>{@code delayedEntries}: entries waiting in the writer's delay queue to be retried;
 *   <li>{@code acknowledgedWatermark}: the event time (epoch ms) before which DynamoDB has
 *       acknowledged every entry of this writer, as last computed ({@link AcknowledgedWatermark}).
 * </ul>
 */
final class SinkMetrics {

    private final MetricGroup group;
    private final Counter recordsWritten;
    private final Map<String, Counter> recordsWrittenPerTable = new ConcurrentHashMap<>();
    final Counter batches;
    final Counter unprocessedItemsRetried;
    final Counter throttledRequests;
    final Counter failedRequests;
    final Counter bisections;
    final Counter rejectedItems;
    final Counter missingTableFallbacks;
    final Counter readingsRerouted;
    final Counter closedTableRaises;
    final Counter onDemandCeilingThrottles;
    final Counter notReplaced;
    private final AtomicLong lastSendLatencyMicros = new AtomicLong();
    private final AtomicLong avgSendLatencyMicros = new AtomicLong(-1);

    SinkMetrics(MetricGroup group) {
        this.group = group;
        this.recordsWritten = counter(group, UserMetrics.RECORDS_WRITTEN);
        this.batches = counter(group, UserMetrics.BATCHES);
        this.unprocessedItemsRetried = counter(group, UserMetrics.UNPROCESSED_ITEMS_RETRIED);
        this.throttledRequests = counter(group, UserMetrics.THROTTLED_REQUESTS);
        this.failedRequests = counter(group, UserMetrics.FAILED_REQUESTS);
        this.bisections = counter(group, UserMetrics.BISECTIONS);
        this.rejectedItems = counter(group, UserMetrics.REJECTED_ITEMS);
        this.missingTableFallbacks = counter(group, UserMetrics.MISSING_TABLE_FALLBACKS);
        this.readingsRerouted = counter(group, UserMetrics.READINGS_REROUTED);
        this.closedTableRaises = counter(group, UserMetrics.CLOSED_TABLE_RAISES);
        this.onDemandCeilingThrottles = counter(group, UserMetrics.ON_DEMAND_CEILING_THROTTLES);
        this.notReplaced = counter(group, UserMetrics.ITEMS_NOT_REPLACED);
        group.gauge(UserMetrics.LAST_SEND_LATENCY_MS, () -> lastSendLatencyMicros.get() / 1000.0);
        group.gauge(UserMetrics.AVG_SEND_LATENCY_MS, () -> Math.max(avgSendLatencyMicros.get(), 0) / 1000.0);
    }

    private static Counter counter(MetricGroup group, String name) {
        return group.counter(name, new ThreadSafeSimpleCounter());
    }

    /** Publishes the size of the writer's delay queue (read on the metric reporter's thread: an estimate). */
    void delayedEntries(IntSupplier size) {
        group.gauge(UserMetrics.DELAYED_ENTRIES, size::getAsInt);
    }

    /** Publishes the writer's acknowledged watermark (epoch ms; the last value computed). */
    void acknowledgedWatermark(LongSupplier value) {
        group.gauge(UserMetrics.ACKNOWLEDGED_WATERMARK, value::getAsLong);
    }

    /** Entries that DynamoDB accepted. */
    void written(List<TableWriteEntry> entries) {
        recordsWritten.inc(entries.size());
        String table = null;
        Counter perTable = null;
        for (TableWriteEntry entry : entries) {
            if (!entry.table().equals(table)) {
                table = entry.table();
                perTable = recordsWrittenPerTable.computeIfAbsent(
                        table, t -> counter(group.addGroup(UserMetrics.TABLE_GROUP, t), UserMetrics.RECORDS_WRITTEN));
            }
            perTable.inc();
        }
    }

    /**
     * Sends one write call ({@code BatchWriteItem}, or a conditional {@code PutItem}) and counts it
     * with its round trip once DynamoDB answered, successfully or not; a call that throws at once
     * is a failed future.
     */
    <T> CompletableFuture<T> timed(Supplier<CompletableFuture<T>> call) {
        long start = System.nanoTime();
        CompletableFuture<T> sent;
        try {
            sent = call.get();
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.whenComplete((answer, error) -> sent(System.nanoTime() - start));
    }

    /** One write call answered (successfully or not) after {@code nanos}. */
    private void sent(long nanos) {
        batches.inc();
        long micros = nanos / 1000;
        lastSendLatencyMicros.set(micros);
        avgSendLatencyMicros.accumulateAndGet(micros, (avg, now) -> avg < 0 ? now : avg + (now - avg) / 8);
    }

    long recordsWritten() {
        return recordsWritten.getCount();
    }
}
