package io.periodtables.sink;

import io.periodtables.core.config.UserMetrics;
import io.periodtables.core.dynamodb.Backoff;
import io.periodtables.core.owner.MissingTableHandler;
import io.periodtables.model.SinkRecord;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.sink.writer.AsyncSinkWriter;
import org.apache.flink.connector.base.sink.writer.BufferedRequestState;
import org.apache.flink.connector.base.sink.writer.RequestEntryWrapper;
import org.apache.flink.connector.base.sink.writer.ResultHandler;
import org.apache.flink.connector.base.sink.writer.config.AsyncSinkWriterConfiguration;
import org.apache.flink.util.function.ThrowingRunnable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The writer of {@link PeriodTableSink}. Flink's {@link AsyncSinkWriter} buffers the entries,
 * forms batches, limits the requests in flight and keeps the buffer in state; this class sends a
 * batch through {@link BatchWrite} and always completes the request when DynamoDB answers: what
 * must be retried waits in the {@link DelayedEntries delay queue} (filed there by {@link
 * Retries}), which a table's backoff and rate control govern and which is sent from here (at most
 * {@code sink.max-in-flight} requests more), so a throttled table holds no request slot and slows
 * no other table. {@link KeysInFlight} keeps one request in flight per key, so the later of two
 * versions of an item is the one stored.
 *
 * <p>Before a checkpoint the writer waits for every request in flight and sends nothing from the
 * delay queue; the snapshot is the delay queue followed by the buffer (older entries first, one
 * list, so a rescale keeps two versions of a key together). A restore sends them with fresh
 * attempts and no backoff. At the end of input the delay queue is drained. An entry that failed
 * {@code sink.max-attempts} times fails the job.
 */
final class PeriodTableSinkWriter extends AsyncSinkWriter<SinkRecord, TableWriteEntry> {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodTableSinkWriter.class);

    private final DynamoDbAsyncClient client;
    private final MissingTableHandler missingTables;
    private final BatchWrite batchWrite;
    private final Retries retries;
    private final int maxInFlight;
    private final int maxDelayed;
    private final MailboxExecutor mailbox;
    private final ScheduledExecutorService wakeups;
    private final EventClock eventClock;
    private final DelayedEntries delayed;
    private final KeysInFlight keys = new KeysInFlight();
    private final AcknowledgedWatermark acknowledged;
    private int delayedInFlight;
    private boolean checkpointing;
    /**
     * Every checkpoint writes everything, as the end of input does ({@link
     * PeriodTableSink.Builder#writeThroughCheckpoints}).
     */
    private final boolean writeThrough;

    private long wakeupAt = Long.MAX_VALUE;

    PeriodTableSinkWriter(
            SinkRecordConverter converter,
            WriterInitContext context,
            AsyncSinkWriterConfiguration configuration,
            Collection<BufferedRequestState<TableWriteEntry>> states,
            DynamoDbAsyncClient client,
            MissingTableHandler missingTables,
            String rejectedTable,
            Backoff backoff,
            int maxAttempts,
            Clock clock,
            AcknowledgedWatermark.Progress progress,
            boolean writeThrough,
            String growing) {
        super(converter, context, configuration, states);
        this.writeThrough = writeThrough;
        this.client = client;
        this.missingTables = missingTables;
        this.maxInFlight = configuration.getMaxInFlightRequests();
        this.maxDelayed = configuration.getMaxBufferedRequests();
        this.mailbox = context.getMailboxExecutor();
        this.delayed = new DelayedEntries(backoff);
        this.retries = new Retries(keys, delayed, maxAttempts);
        SinkMetrics metrics = new SinkMetrics(UserMetrics.of(context.metricGroup()));
        converter.countRejectedIn(metrics.rejectedItems);
        metrics.delayedEntries(delayed::size);
        this.eventClock = converter.eventClock();
        this.batchWrite = new BatchWrite(
                client,
                missingTables,
                new Reroutes(converter::lateEntry, converter::rejectionEntry, rejectedTable),
                metrics,
                clock,
                growing);
        this.acknowledged = AcknowledgedWatermark.of(
                progress,
                client,
                context,
                clock,
                action -> mail(action::run),
                eventClock::mark,
                () -> Math.min(delayed.smallestMark(), keys.smallestMark()));
        acknowledged.restored(states.stream()
                .mapToInt(s -> s.getBufferedRequestEntries().size())
                .sum());
        if (progress != null) {
            metrics.acknowledgedWatermark(acknowledged::last);
        }
        String threadName = "period-table-sink-wakeup-" + context.getTaskInfo().getIndexOfThisSubtask();
        this.wakeups = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Backpressure: a full delay queue stops new input until it drains (responses and wakeups are mails). */
    @Override
    public void write(SinkRecord element, Context context) throws IOException, InterruptedException {
        while (delayed.size() >= maxDelayed) {
            mailbox.yield();
        }
        acknowledged.received();
        super.write(element, context);
    }

    @Override
    protected void submitRequestEntries(List<TableWriteEntry> entries, ResultHandler<TableWriteEntry> result) {
        acknowledged.submitted(entries.size());
        List<TableWriteEntry> send = new ArrayList<>(entries.size());
        for (TableWriteEntry entry : NewestPerKey.of(entries)) {
            if (delayed.supersede(entry)) {
                continue;
            }
            if (delayed.cooling(entry.table()) && !keys.inFlight(entry)) {
                delayed.add(entry);
            } else if (keys.claim(entry)) {
                send.add(entry);
            }
        }
        if (send.isEmpty()) {
            result.complete();
            pump();
            return;
        }
        send(send, result::completeExceptionally, result::complete);
    }

    /** Sends what the delay queue has ready, up to {@code sink.max-in-flight} requests, unless a checkpoint waits. */
    private void pump() {
        long now = System.currentTimeMillis();
        DelayedEntries.Batch batch;
        while (!checkpointing
                && delayedInFlight < maxInFlight
                && (batch = delayed.next(now, PeriodTableSink.MAX_BATCH_ITEMS)) != null) {
            List<TableWriteEntry> send = new ArrayList<>(batch.entries().size());
            batch.entries().stream().filter(keys::claim).forEach(send::add);
            delayedInFlight++;
            String table = batch.table();
            Runnable answered = () -> {
                delayedInFlight--;
                delayed.answered(table);
            };
            if (send.isEmpty()) {
                answered.run();
            } else {
                send(send, getFatalExceptionCons(), answered);
            }
        }
        long next = delayed.nextReadyAt();
        if (!checkpointing && next > now && next < wakeupAt) {
            wakeupAt = next;
            try {
                wakeups.schedule(
                        () -> mail(() -> {
                            wakeupAt = Long.MAX_VALUE;
                            pump();
                        }),
                        next - now,
                        TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closing) {
                // The writer is closing; its state is in the last checkpoint.
            }
        }
    }

    /** Writes {@code entries}, then on the mailbox thread files the outcome and runs {@code answered}. */
    private void send(List<TableWriteEntry> entries, Consumer<Exception> fatal, Runnable answered) {
        long inFlight = acknowledged.sent(entries);
        batchWrite
                .write(entries)
                .whenComplete((outcome, error) -> mail(() -> {
                    acknowledged.answered(inFlight);
                    if (error != null) {
                        fatal.accept(new PeriodTableSinkException(
                                "unexpected failure while writing a batch of " + entries.size() + " entries", error));
                        return;
                    }
                    PeriodTableSinkException failure =
                            outcome.fatal != null ? outcome.fatal : retries.exhausted(outcome);
                    if (failure != null) {
                        fatal.accept(failure);
                        return;
                    }
                    retries.file(entries, outcome);
                    answered.run();
                    pump();
                    acknowledged.check();
                }));
    }

    private void mail(ThrowingRunnable<? extends Exception> action) {
        try {
            mailbox.execute(action, "period-table sink: DynamoDB answered or a backoff ended");
        } catch (RejectedExecutionException closing) {
            // The writer is closing; what it had not written is in the last checkpoint.
        }
    }

    /**
     * Before a checkpoint (not {@code endOfInput}): waits for every request in flight, the delay
     * queue's included, and keeps the delay queue still until {@link #snapshotState}. At the end
     * of input, and before every checkpoint of a write-through sink: writes everything, the delay
     * queue included.
     */
    @Override
    public void flush(boolean endOfInput) throws InterruptedException {
        boolean everything = endOfInput || writeThrough;
        checkpointing = !everything;
        while (true) {
            super.flush(everything);
            if (delayedInFlight == 0 && (!everything || delayed.isEmpty())) {
                if (endOfInput) {
                    acknowledged.finish();
                }
                return;
            }
            pump();
            mailbox.yield();
        }
    }

    @Override
    public List<BufferedRequestState<TableWriteEntry>> snapshotState(long checkpointId) {
        List<RequestEntryWrapper<TableWriteEntry>> entries = delayed.snapshot();
        super.snapshotState(checkpointId).forEach(buffer -> entries.addAll(buffer.getBufferedRequestEntries()));
        checkpointing = false;
        mail(this::pump);
        return List.of(new BufferedRequestState<>(entries));
    }

    /** The watermark decides, with the table owner, whether a missing table's period is still open. */
    @Override
    public void writeWatermark(Watermark watermark) {
        eventClock.watermark(watermark.getTimestamp());
        acknowledged.check();
    }

    @Override
    protected long getSizeInBytes(TableWriteEntry entry) {
        return entry.sizeBytes();
    }

    @Override
    public void close() {
        wakeups.shutdownNow();
        try {
            missingTables.close();
        } catch (Exception e) {
            LOG.warn("Closing the missing-table handler failed", e);
        }
        client.close();
        super.close();
    }
}
