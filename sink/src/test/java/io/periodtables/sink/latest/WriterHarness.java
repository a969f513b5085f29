package io.periodtables.sink.latest;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.TaskInfoImpl;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.streaming.runtime.tasks.StreamTaskActionExecutor;
import org.apache.flink.streaming.runtime.tasks.TestProcessingTimeService;
import org.apache.flink.streaming.runtime.tasks.mailbox.MailboxExecutorImpl;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailboxImpl;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * A {@link LatestWriter} as its task runs it, without a cluster: the test's thread is the task's
 * mailbox thread, and processing time moves only when the test says so.
 */
final class WriterHarness implements AutoCloseable {
    static final Instant HOUR = Instant.parse("2026-11-22T13:00:00Z");

    final TestProcessingTimeService time = new TestProcessingTimeService();
    final LatestWriter writer;
    private final MailboxExecutorImpl mailbox;

    WriterHarness(DynamoDbAsyncClient client, int subtask, String... keyValues) {
        this(client, subtask, LatestWriter.MAX_PENDING, keyValues);
    }

    WriterHarness(DynamoDbAsyncClient client, int subtask, int maxPending, String... keyValues) {
        mailbox = new MailboxExecutorImpl(
                new TaskMailboxImpl(Thread.currentThread()), 0, StreamTaskActionExecutor.IMMEDIATE);
        Map<String, Object> parts = Map.of(
                "getMailboxExecutor",
                mailbox,
                "getProcessingTimeService",
                time,
                "metricGroup",
                UnregisteredMetricsGroup.createSinkWriterMetricGroup(),
                "getTaskInfo",
                new TaskInfoImpl("latest-sink", 128, subtask, 2, 0));
        WriterInitContext context = (WriterInitContext) Proxy.newProxyInstance(
                WriterInitContext.class.getClassLoader(), new Class<?>[] {WriterInitContext.class}, (p, m, a) -> {
                    if (!parts.containsKey(m.getName())) {
                        throw new UnsupportedOperationException(m.getName());
                    }
                    return parts.get(m.getName());
                });
        writer = new LatestWriter(config(keyValues), client, maxPending, context);
    }

    static PeriodTablesConfig config(String... keyValues) {
        Map<String, String> map = new HashMap<>();
        map.put("dynamodb.endpoint", "http://127.0.0.1:1");
        map.put("dynamodb.embedded", "false");
        map.put("tables.prefix", "harness");
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return ConfigLoader.fromMap(map, true);
    }

    /** Reading {@code i} of device {@code device}, {@code i} ms into the hour. */
    static SinkRecord reading(int device, long i) {
        return SinkRecord.period(new Reading("dev-" + device, HOUR.toEpochMilli() + i, null, "{\"i\":" + i + "}"));
    }

    /** One tick of processing time passes: the writer's timer sends the devices due. */
    void nextSecond() throws Exception {
        time.advance(LatestWriter.TICK_MILLIS);
    }

    /**
     * Runs the mailbox (the puts' answers) until every put {@code table} was sent has been
     * answered and its answer handled, or fails after {@code bound}.
     */
    void awaitAnswered(FakeLatestTable table, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (table.sent() > table.settled() || mailbox.tryYield()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("puts still unanswered after " + bound + ": sent " + table.sent()
                        + ", answered " + table.settled());
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public void close() {
        writer.close();
    }
}
