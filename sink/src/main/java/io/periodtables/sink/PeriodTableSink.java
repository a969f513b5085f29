package io.periodtables.sink;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.dynamodb.Backoff;
import io.periodtables.core.dynamodb.DynamoDbClients;
import io.periodtables.core.item.DynamoDbItemSize;
import io.periodtables.core.item.ItemBuilder;
import io.periodtables.core.owner.MissingTableHandler;
import io.periodtables.core.period.TableNaming;
import io.periodtables.model.SinkRecord;
import java.io.Serializable;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.sink.AsyncSinkBase;
import org.apache.flink.connector.base.sink.writer.BufferedRequestState;
import org.apache.flink.connector.base.sink.writer.config.AsyncSinkWriterConfiguration;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.util.Preconditions;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * The period-routing DynamoDB sink: each {@link SinkRecord} goes to its period's table, the late
 * table of the write month, or the rejected table, as the item DESIGN.md describes (keys from
 * {@code WriteSharding}, so a replay rewrites the same item). Batches of up to 25 items span
 * tables; duplicate keys are removed, unprocessed items and throttled or failed requests wait in
 * a delay queue and are retried with per-table backoff (no request slot is held meanwhile, and a
 * throttled table slows no other), one request in flight per item key keeps the later version of
 * an item the stored one, an item DynamoDB refuses is isolated by bisection and rejected, a missing
 * or throttling table is reported to the {@link MissingTableHandler} (the table owner, who
 * decides whether to create it or where the entries go), refused credentials fail the job.
 * At-least-once through checkpoints, with the buffer and the delay queue in versioned writer state.
 *
 * <p>{@code sink.max-in-flight}, {@code sink.max-buffered}, {@code sink.max-attempts} and
 * {@code sink.request-timeout} come from the configuration.
 */
@PublicEvolving
public final class PeriodTableSink extends AsyncSinkBase<SinkRecord, TableWriteEntry> {
    private static final long serialVersionUID = 1L;

    /** DynamoDB's limit on items per {@code BatchWriteItem}. */
    static final int MAX_BATCH_ITEMS = 25;

    /** DynamoDB's limit on the size of one {@code BatchWriteItem} request. */
    static final long MAX_BATCH_BYTES = 16L * 1024 * 1024;

    private final PeriodTablesConfig config;
    private final MissingTableHandler.Factory missingTables;
    private final List<Class<? extends ExecutionInterceptor>> interceptors;
    private final Clock clock;
    private final Backoff backoff;
    private final AcknowledgedWatermark.Progress progress;
    private final boolean writeThrough;
    private final String growing;

    private PeriodTableSink(Builder b, SinkRecordConverter converter) {
        super(
                converter,
                MAX_BATCH_ITEMS,
                b.config.get(ConfigKeys.SINK_MAX_IN_FLIGHT),
                b.config.get(ConfigKeys.SINK_MAX_BUFFERED),
                MAX_BATCH_BYTES,
                b.maxTimeInBuffer.toMillis(),
                DynamoDbItemSize.MAX_ITEM_BYTES,
                AsyncSinkWriterConfiguration.DEFAULT_REQUEST_TIMEOUT_MS,
                false);
        this.config = b.config;
        this.missingTables = b.missingTables;
        this.interceptors = List.copyOf(b.interceptors);
        this.clock = b.clock;
        this.backoff = new Backoff(b.initialBackoff, b.maxBackoff);
        this.writeThrough = b.writeThrough;
        this.growing = b.growing;
        this.progress = b.writerGroup == null
                ? null
                : new AcknowledgedWatermark.Progress(
                        b.writerGroup, b.writerRun, b.config.naming(), b.config.get(ConfigKeys.ALLOWED_LATENESS));
    }

    public static Builder builder() {
        return new Builder();
    }

    @Internal
    @Override
    public StatefulSinkWriter<SinkRecord, BufferedRequestState<TableWriteEntry>> createWriter(
            WriterInitContext context) {
        return restoreWriter(context, List.of());
    }

    @Internal
    @Override
    public StatefulSinkWriter<SinkRecord, BufferedRequestState<TableWriteEntry>> restoreWriter(
            WriterInitContext context, Collection<BufferedRequestState<TableWriteEntry>> recoveredState) {
        SinkRecordConverter converter = (SinkRecordConverter) getElementConverter();
        AsyncSinkWriterConfiguration writerConfig = AsyncSinkWriterConfiguration.builder()
                .setMaxBatchSize(getMaxBatchSize())
                .setMaxBatchSizeInBytes(getMaxBatchSizeInBytes())
                .setMaxInFlightRequests(getMaxInFlightRequests())
                .setMaxBufferedRequests(getMaxBufferedRequests())
                .setMaxTimeInBufferMS(getMaxTimeInBufferMS())
                .setMaxRecordSizeInBytes(getMaxRecordSizeInBytes())
                .setRequestTimeoutMS(getRequestTimeoutMS())
                .setFailOnTimeout(getFailOnTimeout())
                .build();
        return new PeriodTableSinkWriter(
                converter,
                context,
                writerConfig,
                recoveredState,
                // the delay queue's requests and bisection halves travel next to the regular ones
                DynamoDbClients.of(config)
                        .withInterceptors(interceptors)
                        .newAsyncClientForNonBlockingCallbacks(3 * getMaxInFlightRequests()),
                missingTables.create(config),
                config.naming().rejectedTable(),
                backoff,
                config.get(ConfigKeys.SINK_MAX_ATTEMPTS),
                clock,
                progress,
                writeThrough,
                growing);
    }

    /** Flink 1.20 creates writers with a {@link WriterInitContext}; this older entry point is not supported. */
    @Internal
    @Override
    @Deprecated
    public StatefulSinkWriter<SinkRecord, BufferedRequestState<TableWriteEntry>> createWriter(
            Sink.InitContext context) {
        throw new UnsupportedOperationException("PeriodTableSink needs Flink's WriterInitContext (Flink 1.19+)");
    }

    @Internal
    @Override
    public SimpleVersionedSerializer<BufferedRequestState<TableWriteEntry>> getWriterStateSerializer() {
        return new TableWriteEntrySerializer();
    }

    /**
     * Builds a {@link PeriodTableSink}. Only the configuration is required; the missing-table
     * handler defaults to {@link MissingTableHandler.Factory#failing()}, the clock (which picks
     * the late table's month) to UTC system time.
     */
    @PublicEvolving
    public static final class Builder {
        private PeriodTablesConfig config;
        private MissingTableHandler.Factory missingTables = MissingTableHandler.Factory.failing();
        private List<Class<? extends ExecutionInterceptor>> interceptors = List.of();
        private Clock clock = Clock.systemUTC();
        private Duration initialBackoff = Duration.ofMillis(50);
        private Duration maxBackoff = Duration.ofSeconds(5);
        private Duration maxTimeInBuffer = Duration.ofSeconds(1);
        private String writerGroup;
        private String writerRun = "";
        private boolean writeThrough;
        private String growing;

        private Builder() {}

        /**
         * An item replaces the stored one only when its number {@code attribute} is at least the
         * stored one's: a conditional {@code PutItem} per item instead of {@code BatchWriteItem}
         * (the same write units; a refused put costs one too), counted as written either way
         * ({@code itemsNotReplaced} counts the refusals). For items that grow as they are refined,
         * such as a rollup bucket's {@code readings}: a replay from a later stream position, or an
         * older version written after a newer one, never makes a stored item smaller.
         */
        public Builder replaceOnlyWhenNotSmaller(String attribute) {
            Preconditions.checkArgument(
                    attribute != null && !attribute.isEmpty(), "attribute must be a non-empty name, was %s", attribute);
            this.growing = attribute;
            return this;
        }

        /**
         * Every checkpoint waits until DynamoDB has taken everything the sink was given, retries
         * included, so the checkpoint holds none of its entries. For items rewritten as they change
         * (a rollup bucket): after a change of parallelism, a buffered older version would be
         * restored to another writer than the newer version's, and could be written after it.
         * Checkpoints take as long as that backlog does.
         */
        public Builder writeThroughCheckpoints() {
            this.writeThrough = true;
            return this;
        }

        /**
         * The writers of this sink report what DynamoDB has acknowledged to the writers table
         * under {@code group} ({@link AcknowledgedWatermark}); the rotation, told the same group,
         * lowers a closed table only once they have written it through. Unset: they do not report.
         */
        public Builder writerGroup(String group) {
            Preconditions.checkArgument(
                    group != null && !group.isEmpty() && !group.contains("#"),
                    "writerGroup must be a non-empty name without '#', was %s",
                    group);
            this.writerGroup = group;
            return this;
        }

        /**
         * The submission the writers report under, shared with the rotation ({@code
         * Rotation.Builder#writerRun}): drawn anew for every job graph, so that a restore under the
         * same job id is another run.
         */
        public Builder writerRun(String submission) {
            this.writerRun = Preconditions.checkNotNull(submission, "submission");
            return this;
        }

        public Builder config(PeriodTablesConfig config) {
            this.config = config;
            return this;
        }

        /** Who decides about a table DynamoDB reports missing or throttling (the job: the rotation's life cycle). */
        public Builder missingTableHandler(MissingTableHandler.Factory factory) {
            this.missingTables = factory;
            return this;
        }

        /** SDK interceptors for the sink's client, created per writer (tests inject faults with them). */
        public Builder interceptors(List<Class<? extends ExecutionInterceptor>> interceptors) {
            this.interceptors = interceptors;
            return this;
        }

        /** The clock that decides the late table's month; must be {@link Serializable}. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** Backoff of retried entries: from {@code initial}, doubling per failed attempt, up to {@code max}. */
        public Builder retryBackoff(Duration initial, Duration max) {
            this.initialBackoff = initial;
            this.maxBackoff = max;
            return this;
        }

        /** How long an entry may wait in the buffer for a full batch (default 1 s). */
        public Builder maxTimeInBuffer(Duration maxTimeInBuffer) {
            this.maxTimeInBuffer = maxTimeInBuffer;
            return this;
        }

        public PeriodTableSink build() {
            Preconditions.checkNotNull(config, "PeriodTableSink needs a configuration: builder().config(config)");
            Preconditions.checkNotNull(missingTables, "missingTableHandler must not be null");
            Preconditions.checkNotNull(interceptors, "interceptors must not be null (use List.of())");
            Preconditions.checkArgument(
                    clock instanceof Serializable,
                    "the sink's clock must be Serializable (Clock.systemUTC(), Clock.fixed and Clock.offset are), was"
                            + " %s",
                    clock);
            Preconditions.checkArgument(
                    config.get(ConfigKeys.SINK_MAX_BUFFERED) > MAX_BATCH_ITEMS,
                    "sink.max-buffered must be greater than %s (one full batch), was %s",
                    MAX_BATCH_ITEMS,
                    config.get(ConfigKeys.SINK_MAX_BUFFERED));
            Preconditions.checkArgument(
                    maxTimeInBuffer.toMillis() > 0, "maxTimeInBuffer must be at least 1 ms, was %s", maxTimeInBuffer);
            TableNaming naming = config.naming();
            ItemBuilder items = new ItemBuilder(config.sharding(), config.ttl().orElse(null));
            return new PeriodTableSink(
                    this,
                    new SinkRecordConverter(
                            naming,
                            items,
                            clock,
                            config.get(ConfigKeys.OUT_OF_ORDERNESS).toMillis()));
        }
    }
}
