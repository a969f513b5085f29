package io.periodtables.sink;

import io.periodtables.core.dynamodb.DynamoDbFailure;
import io.periodtables.core.dynamodb.WritersTable;
import io.periodtables.core.period.EndOfInput;
import io.periodtables.core.period.PeriodCalendar;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one writer's acknowledged watermark ({@link AcknowledgedWatermark}) to the {@link
 * WritersTable}, where the rotation reads it: a closed table is lowered only once every writer of
 * the job has written its period through. Only the period matters there, so it puts only when the
 * oldest period the value leaves open moved on (a few puts per period), one put at a time and
 * never backwards. It never fails the job: DynamoDB's problems do that through the sink's writes;
 * until a report succeeds, closed tables wait for it. Mailbox thread only (the puts complete
 * through the writer's mailbox).
 */
final class WatermarkPublisher {
    private static final Logger LOG = LoggerFactory.getLogger(WatermarkPublisher.class);

    private final WritersTable table;
    private final WritersTable.Writer writer;
    private final PeriodCalendar calendar;
    private final Duration lateness;
    private final Clock clock;
    private final Consumer<Runnable> mailbox;
    private long publishedPosition = Long.MIN_VALUE;
    private long pending = Long.MIN_VALUE;
    private boolean putRunning;
    private boolean started;
    /** The start under way (the table ensured, then the item put), or null. */
    private CompletableFuture<Void> starting;

    private boolean warned;

    /** @param mailbox runs the puts' completions on the writer's thread */
    WatermarkPublisher(
            WritersTable table,
            WritersTable.Writer writer,
            PeriodCalendar calendar,
            Duration lateness,
            Clock clock,
            Consumer<Runnable> mailbox) {
        this.table = table;
        this.writer = writer;
        this.calendar = calendar;
        this.lateness = lateness;
        this.clock = clock;
        this.mailbox = mailbox;
    }

    /**
     * Asynchronously: the table exists, and this writer's item says nothing is acknowledged
     * yet (a restarted writer's too); nothing is published before that. A failure is logged
     * once and tried again with the next watermark.
     */
    void start() {
        if (started || starting != null) {
            return;
        }
        CompletableFuture<Void> start = table.ensure().thenCompose(ready -> table.start(writer, clock.instant()));
        starting = start;
        start.whenComplete((ok, error) -> mailbox.accept(() -> {
            if (starting == start) {
                starting = null;
            }
            if (started) {
                return; // the end of input waited for it and has published
            }
            if (error != null) {
                warnOnce("could not start reporting to", error);
                return;
            }
            started = true;
            LOG.info("Writer {} reports what it has written through in {}", writer, table.name());
            offer(pending);
        }));
    }

    /** True when a watermark this far could close a period not yet published. */
    boolean mayMove(long watermark) {
        return position(watermark) > publishedPosition;
    }

    void offer(long acknowledged) {
        pending = Math.max(pending, acknowledged);
        if (!started) {
            start();
            return;
        }
        if (putRunning || position(pending) <= publishedPosition) {
            return;
        }
        long sending = pending;
        putRunning = true;
        table.publish(writer, sending, clock.instant())
                .whenComplete((ok, error) -> mailbox.accept(() -> {
                    putRunning = false;
                    if (error != null) {
                        warnOnce("could not report its acknowledged watermark to", error);
                        return;
                    }
                    publishedPosition = Math.max(publishedPosition, position(sending));
                    offer(pending);
                }));
    }

    /**
     * Publishes and waits (the end of input); after a few failed attempts closed tables wait for the
     * next run. A start still under way is waited for first: its put says "nothing acknowledged
     * yet", and landing after this one it would take the end back (closed tables would wait for
     * this writer, and the rotation's end of input with them, until its finish timeout).
     */
    void publishNow(long acknowledged) {
        if (starting != null) {
            try {
                starting.join();
                started = true;
            } catch (RuntimeException failed) {
                // started again below
            }
            starting = null;
        }
        RuntimeException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                if (!started) {
                    table.ensure().join();
                    table.start(writer, clock.instant()).join();
                    started = true;
                }
                table.publish(writer, acknowledged, clock.instant()).join();
                publishedPosition = position(acknowledged);
                return;
            } catch (RuntimeException e) {
                last = e;
            }
        }
        warnOnce("could not report the end of its input to", last);
    }

    private void warnOnce(String what, Throwable error) {
        if (!warned) {
            warned = true;
            LOG.warn(
                    "Writer {} {} {} (tried again with the next watermark; closed tables wait meanwhile): {}",
                    writer,
                    what,
                    table.name(),
                    DynamoDbFailure.describe(error));
        }
    }

    /** The start of the oldest period {@code acknowledged} leaves open: what the rotation acts on. */
    private long position(long acknowledged) {
        if (acknowledged == Long.MIN_VALUE || EndOfInput.is(acknowledged)) {
            return acknowledged;
        }
        try {
            return calendar.oldestOpen(acknowledged, lateness).startMillis();
        } catch (IllegalArgumentException outsideTableNames) {
            return acknowledged;
        }
    }
}
