package io.periodtables.sink;

import io.periodtables.conf.UserMetrics;
import io.periodtables.model.SinkRecord;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.sink.writer.AsyncSinkWriter;
import org.apache.flink.connector.base.sink.writer.BufferedRequestState;
import org.apache.flink.connector.base.sink.writer.ResultHandler;
import org.apache.flink.connector.base.sink.writer.config.AsyncSinkWriterConfiguration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The writer of {@link PeriodTableSink}. Flink's {@link AsyncSinkWriter} buffers the entries,
 * forms batches, limits the requests in flight, completes them before each checkpoint and keeps
 * the buffer in state; this class sends one batch: it removes duplicate keys, hands the batch to
 * {@link BatchWrite}, and gives the entries to retry back to the buffer after a backoff with
 * jitter (the request stays in flight meanwhile, so checkpoints still wait for it). An entry that
 * failed {@code sink.max-attempts} times fails the job.
 */
final class PeriodTableSinkWriter extends AsyncSinkWriter<SinkRecord, TableWriteEntry> {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodTableSinkWriter.class);

    private final DynamoDbAsyncClient client;
    private final MissingTableHandler missingTables;
    private final BatchWrite batchWrite;
    private final RetryBackoff backoff;
    private final int maxAttempts;
    private final ScheduledExecutorService retryTimer;
    private final EventClock eventClock;

    PeriodTableSinkWriter(
            SinkRecordConverter converter,
            WriterInitContext context,
            AsyncSinkWriterConfiguration configuration,
            Collection<BufferedRequestState<TableWriteEntry>> states,
            DynamoDbAsyncClient client,
            MissingTableHandler missingTables,
            String rejectedTable,
            RetryBackoff backoff,
            int maxAttempts,
            Clock clock) {
        super(converter, context, configuration, states);
        this.client = client;
        this.missingTables = missingTables;
        this.backoff = backoff;
        this.maxAttempts = maxAttempts;
        SinkMetrics metrics = new SinkMetrics(UserMetrics.of(context.metricGroup()), converter.rejectedItems());
        this.eventClock = converter.eventClock();
        this.batchWrite = new BatchWrite(client, missingTables, new BatchWrite.Reroutes(converter::lateEntry,
                converter::rejectionEntry, rejectedTable), metrics, clock);
        String threadName = "period-table-sink-retry-" + context.getTaskInfo().getIndexOfThisSubtask();
        this.retryTimer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    protected void submitRequestEntries(List<TableWriteEntry> entries, ResultHandler<TableWriteEntry> result) {
        batchWrite.write(NewestPerKey.of(entries)).whenComplete((outcome, error) -> {
            if (error != null) {
                result.completeExceptionally(new PeriodTableSinkException(
                        "unexpected failure while writing a batch of " + entries.size() + " entries", error));
            } else {
                complete(outcome, result);
            }
        });
    }

    private void complete(BatchOutcome outcome, ResultHandler<TableWriteEntry> result) {
        if (outcome.fatal != null) {
            result.completeExceptionally(outcome.fatal);
            return;
        }
        if (outcome.isDone()) {
            result.complete();
            return;
        }
        for (TableWriteEntry entry : outcome.retry) {
            if (entry.failedAttempts() >= maxAttempts) {
                result.completeExceptionally(new PeriodTableSinkException("the item pk=" + entry.pk() + ", sk="
                        + entry.sk() + " for table " + entry.table() + " failed " + entry.failedAttempts()
                        + " attempts (sink.max-attempts=" + maxAttempts + "); the job stops instead of dropping it."
                        + " Last error: " + outcome.lastError));
                return;
            }
        }
        List<TableWriteEntry> requeue = new ArrayList<>(outcome.retry.size() + outcome.added.size());
        requeue.addAll(outcome.retry);
        requeue.addAll(outcome.added);
        long delay = backoff.delayMillis(outcome.maxFailedAttempts());
        if (delay == 0) {
            result.retryForEntries(requeue);
            return;
        }
        LOG.debug("Retrying {} entries in {} ms: {}", outcome.retry.size(), delay, outcome.lastError);
        try {
            retryTimer.schedule(() -> result.retryForEntries(requeue), delay, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // The writer is closing; its buffer is gone with it and the last checkpoint replays.
        }
    }

    /** The watermark decides, with the table owner, whether a missing table's period is still open. */
    @Override
    public void writeWatermark(Watermark watermark) {
        eventClock.watermark(watermark.getTimestamp());
    }

    @Override
    protected long getSizeInBytes(TableWriteEntry entry) {
        return entry.sizeBytes();
    }

    @Override
    public void close() {
        retryTimer.shutdownNow();
        try {
            missingTables.close();
        } catch (Exception e) {
            LOG.warn("Closing the missing-table handler failed", e);
        }
        client.close();
        super.close();
    }
}
