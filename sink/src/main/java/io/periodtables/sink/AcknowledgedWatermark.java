package io.periodtables.sink;

import io.periodtables.core.dynamodb.WritersTable;
import io.periodtables.core.period.TableNaming;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * One writer's acknowledged watermark: the event time before which DynamoDB has acknowledged
 * every entry the writer received. Every entry carries the watermark the writer had seen when it
 * was made ({@link TableWriteEntry.Origin#mark()}); an entry still held anywhere in the writer
 * (Flink's buffer, a request in flight, the delay queue, behind its key in flight) holds the
 * acknowledged watermark at its mark, so it is the smallest mark held, or the watermark when
 * nothing is. An entry restored from a checkpoint has the smallest mark of all until written.
 *
 * <p>The rotation lowers a closed table only once every writer's acknowledged watermark has
 * closed it, so this is published to the {@link WritersTable} by a {@link WatermarkPublisher} when
 * the writer starts and whenever it closes another period (a few writes per period, one at a
 * time), and at the end of input. Mailbox thread only.
 */
final class AcknowledgedWatermark {
    /** Marks of the entries in Flink's buffer, oldest first, as runs of {mark, count}: it is first in, first out. */
    private final ArrayDeque<long[]> buffered = new ArrayDeque<>();
    /** The smallest mark of each request in flight, counted. */
    private final TreeMap<Long, Integer> inFlight = new TreeMap<>();

    private final LongSupplier watermark;
    private final LongSupplier heldElsewhere;
    private final WatermarkPublisher publisher;
    private long value = Long.MIN_VALUE;

    /**
     * What a writer needs to publish its acknowledged watermark: its sink's writer group (the
     * rotation waits for each group it is told), the tables' naming and {@code
     * window.allowed-lateness}.
     */
    record Progress(String group, String submission, TableNaming naming, Duration lateness)
            implements java.io.Serializable {}

    /**
     * The acknowledged watermark of the writer {@code context} describes, published to the
     * writers table through {@code client} when {@code progress} is given (it starts reporting
     * at once, asynchronously), else kept for nobody.
     *
     * @param mailbox runs the puts' completions on the writer's thread
     */
    static AcknowledgedWatermark of(
            Progress progress,
            DynamoDbAsyncClient client,
            WriterInitContext context,
            Clock clock,
            Consumer<Runnable> mailbox,
            LongSupplier watermark,
            LongSupplier heldElsewhere) {
        WatermarkPublisher publisher = null;
        if (progress != null) {
            publisher = new WatermarkPublisher(
                    new WritersTable(client, progress.naming()),
                    new WritersTable.Writer(
                            progress.group(),
                            WritersTable.run(
                                    context.getJobInfo().getJobId().toString(),
                                    progress.submission(),
                                    context.getRestoredCheckpointId()),
                            context.getTaskInfo().getIndexOfThisSubtask(),
                            context.getTaskInfo().getNumberOfParallelSubtasks(),
                            context.getTaskInfo().getAttemptNumber()),
                    progress.naming().calendar(),
                    progress.lateness(),
                    clock,
                    mailbox);
            publisher.start();
        }
        return new AcknowledgedWatermark(watermark, heldElsewhere, publisher);
    }

    /**
     * @param watermark the writer's last watermark ({@link EventClock#mark()})
     * @param heldElsewhere the smallest mark in the delay queue and behind keys in flight
     * @param publisher where it is published; null: nowhere (a sink without a writer group)
     */
    AcknowledgedWatermark(LongSupplier watermark, LongSupplier heldElsewhere, WatermarkPublisher publisher) {
        this.watermark = watermark;
        this.heldElsewhere = heldElsewhere;
        this.publisher = publisher;
    }

    /** Entries restored from a checkpoint entered the buffer. */
    void restored(int count) {
        if (count > 0) {
            buffered.addLast(new long[] {Long.MIN_VALUE, count});
        }
    }

    /** One entry is about to enter the buffer, made at the current watermark. */
    void received() {
        long mark = watermark.getAsLong();
        long[] last = buffered.peekLast();
        if (last != null && last[0] == mark) {
            last[1]++;
        } else {
            buffered.addLast(new long[] {mark, 1});
        }
    }

    /** The oldest {@code count} entries left the buffer for a request (they are held elsewhere from now on). */
    void submitted(int count) {
        int left = count;
        while (left > 0 && !buffered.isEmpty()) {
            long[] first = buffered.peekFirst();
            long taken = Math.min(first[1], left);
            first[1] -= taken;
            left -= taken;
            if (first[1] == 0) {
                buffered.removeFirst();
            }
        }
    }

    /** A request with {@code entries} is in flight; returns what to hand to {@link #answered}. */
    long sent(List<TableWriteEntry> entries) {
        long smallest = Long.MAX_VALUE;
        for (TableWriteEntry entry : entries) {
            smallest = Math.min(smallest, entry.origin().mark());
        }
        inFlight.merge(smallest, 1, Integer::sum);
        return smallest;
    }

    /**
     * The request {@link #sent} returned {@code key} for was answered (what it must retry is held elsewhere by now).
     */
    void answered(long key) {
        inFlight.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
    }

    /** The acknowledged watermark now. */
    long value() {
        long smallest = watermark.getAsLong();
        if (!buffered.isEmpty()) {
            smallest = Math.min(smallest, buffered.peekFirst()[0]);
        }
        if (!inFlight.isEmpty()) {
            smallest = Math.min(smallest, inFlight.firstKey());
        }
        return Math.min(smallest, heldElsewhere.getAsLong());
    }

    /** Gauge value: the last one computed. */
    long last() {
        return value;
    }

    /** Publishes the value when it has closed another period since the last publication. */
    void check() {
        if (publisher == null || !publisher.mayMove(watermark.getAsLong())) {
            return;
        }
        value = value();
        publisher.offer(value);
    }

    /** At the end of input, after everything was written: publishes and waits for it. */
    void finish() {
        value = value();
        if (publisher != null) {
            publisher.publishNow(value);
        }
    }
}
