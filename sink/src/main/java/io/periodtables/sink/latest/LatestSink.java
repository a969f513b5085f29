package io.periodtables.sink.latest;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.model.SinkRecord;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Keeps the latest table ({@code io.periodtables.core.dynamodb.LatestTable}) up to date from the readings
 * the period-table sink stores: per device the newest reading a writer has seen, put at most once
 * per {@code latest.interval} per device and on every checkpoint, conditionally, so the stored one only ever moves
 * forward in event time. Each writer holds at most {@value LatestWriter#MAX_PENDING} devices and
 * slows its task down when DynamoDB falls behind (see {@link LatestWriter}). At-least-once (a put
 * is idempotent); no state of its own.
 */
@PublicEvolving
public final class LatestSink implements Sink<SinkRecord> {
    private static final long serialVersionUID = 1L;

    private final PeriodTablesConfig config;
    private final DynamoDbClients clients;
    private final int maxPendingDevices;

    public LatestSink(PeriodTablesConfig config) {
        this(config, DynamoDbClients.of(config), LatestWriter.MAX_PENDING);
    }

    /**
     * A sink whose clients carry test interceptors and whose writers hold at most {@code maxPendingDevices} devices.
     */
    @VisibleForTesting
    public LatestSink(PeriodTablesConfig config, DynamoDbClients clients, int maxPendingDevices) {
        this.config = config;
        this.clients = clients;
        this.maxPendingDevices = maxPendingDevices;
    }

    @Internal
    @Override
    public SinkWriter<SinkRecord> createWriter(WriterInitContext context) {
        return new LatestWriter(config, clients, maxPendingDevices, context);
    }

    /** Flink 1.20 creates writers with a {@link WriterInitContext}; this older entry point is not supported. */
    @Internal
    @Override
    @Deprecated
    public SinkWriter<SinkRecord> createWriter(Sink.InitContext context) throws IOException {
        throw new UnsupportedOperationException("LatestSink needs Flink's WriterInitContext (Flink 1.19+)");
    }
}
