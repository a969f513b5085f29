package io.periodtables.rotation.operator;

import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.RedeploySettings;
import io.periodtables.core.config.TableBudget;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.core.dynamodb.WritersTable;
import io.periodtables.core.period.TableNaming;
import io.periodtables.rotation.controlplane.TableManager;
import io.periodtables.rotation.lifecycle.OpenCapacity;
import io.periodtables.rotation.lifecycle.TableLoad;
import io.periodtables.rotation.reconcile.Reconciler;
import io.periodtables.rotation.reconcile.RotationEvent;
import io.periodtables.rotation.reconcile.RotationMetrics;
import io.periodtables.rotation.reconcile.RotationState;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The Flink side of the rotation: a parallelism-1 operator that hands every watermark advance,
 * the event times of its (sparse) elements and a periodic tick to the {@link Reconciler}, reads
 * the sink writers' acknowledged watermark while a closed table waits for it ({@link WritersTable}), keeps the write
 * load per table from its optional second input ({@link
 * TableLoad}, for {@link OpenCapacity}), and brings the reconciler's asynchronous results back through the task's
 * mailbox, so that state is only touched by the task thread and the watermark is never held up
 * by DynamoDB.
 *
 * <p>A custom operator rather than a keyed process function: it sees every watermark directly
 * (no element or registered timer needed to wake it), and its state is operator state in an
 * explicit, versioned format ({@link RotationStateSerializer}). At every start and restore the
 * reconciler reads all tables of the prefix back before it acts on them.
 *
 * @param <T> the element type of the sparse side stream; elements only matter for their timestamp
 */
@Internal
public final class RotationOperator<T> extends AbstractStreamOperator<RotationEvent>
        implements OneInputStreamOperator<T, RotationEvent>, TwoInputStreamOperator<T, TableLoad, RotationEvent> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(RotationOperator.class);
    /** How often the writers table is read while a closed table waits for the writers. */
    private static final long WRITERS_POLL_MILLIS = 500;
    /** The same at the end of input. */
    private static final long FINISH_POLL_MILLIS = 100;

    private final RotationOptions options;
    private final transient MailboxExecutor mailbox;
    private transient ListState<byte[]> store;
    private transient RotationState restored;
    private transient RedeploySettings settings;
    private transient OptionalLong restoredCheckpoint;
    private transient TableManager manager;
    private transient Reconciler reconciler;
    private transient RotationState state;
    private transient RotationMetrics metrics;
    private transient DynamoDbAsyncClient writersClient;
    /** Kept: {@code config().naming()} builds a naming and a calendar, whose period cache a watermark then misses. */
    private transient TableNaming naming;

    RotationOperator(RotationOptions options, StreamOperatorParameters<RotationEvent> parameters) {
        this.options = options;
        this.mailbox = parameters.getMailboxExecutor();
        setProcessingTimeService(parameters.getProcessingTimeService());
        setup(parameters.getContainingTask(), parameters.getStreamConfig(), parameters.getOutput());
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        restoredCheckpoint = context.getRestoredCheckpointId();
        store = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>(
                        "period-rotation-state", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        try {
            // before the reconciler creates or changes a table under settings the state was not kept for
            settings =
                    RedeploySettings.restore(context.getOperatorStateStore(), context.isRestored(), options.config());
        } catch (ConfigException refused) {
            throw new SuppressRestartsException(refused);
        }
        if (context.isRestored()) {
            for (byte[] bytes : store.get()) {
                restored =
                        SimpleVersionedSerialization.readVersionAndDeSerialize(RotationStateSerializer.INSTANCE, bytes);
            }
            if (restored != null) {
                restored.load.keepOnly(options.config().naming()); // a changed prefix or period length
            }
            LOG.info("Rotation restored: {}", restored);
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        TableBudget.of(options.config()).warning().ifPresent(LOG::warn);
        manager = TableManager.create(options.config(), options.clients(), options.settings());
        naming = options.config().naming();
        state = restored != null ? restored : new RotationState();
        state.load.countingFor(options.config());
        metrics = new RotationMetrics(UserMetrics.of(getMetricGroup()));
        reconciler = new Reconciler(
                manager,
                options.config(),
                state,
                metrics,
                new Reconciler.Host() {
                    @Override
                    public void post(Runnable action) {
                        try {
                            mailbox.execute(action::run, "period rotation result");
                        } catch (RuntimeException closed) {
                            LOG.debug("Rotation result arrived after the operator closed; dropped", closed);
                        }
                    }

                    @Override
                    public void emit(RotationEvent event) {
                        output.collect(new StreamRecord<>(event));
                    }

                    @Override
                    public long wallClockMillis() {
                        return getProcessingTimeService().getCurrentProcessingTime();
                    }
                },
                options.retentionGate(),
                writers());
        reconciler.start();
        long interval = options.reconcileInterval().toMillis();
        getProcessingTimeService().scheduleWithFixedDelay(time -> reconciler.tick(), interval, interval);
        if (!options.writerGroups().isEmpty()) {
            getProcessingTimeService()
                    .scheduleWithFixedDelay(time -> reconciler.pollWriters(), WRITERS_POLL_MILLIS, WRITERS_POLL_MILLIS);
        }
    }

    /**
     * The smallest acknowledged watermark of this job's writers of every group, or null when there are none to wait
     * for.
     */
    private Reconciler.Writers writers() {
        List<String> groups = options.writerGroups();
        if (groups.isEmpty()) {
            return null;
        }
        writersClient = options.clients().newAsyncClient(2);
        WritersTable table = new WritersTable(writersClient, options.config().naming());
        String run = WritersTable.run(
                getRuntimeContext().getJobInfo().getJobId().toString(), options.writerRun(), restoredCheckpoint);
        // The job is one pipelined region: a failover restarts every task, the writers with this
        // operator, and each restarted task's attempt number goes up with this one's.
        int attempt = getRuntimeContext().getTaskInfo().getAttemptNumber();
        LOG.info(
                "Closed tables are lowered once the writers of {} in run {}, attempt {} or later, have written"
                        + " them through ({})",
                groups,
                run,
                attempt,
                table.name());
        return () -> {
            CompletableFuture<OptionalLong> all = CompletableFuture.completedFuture(OptionalLong.of(Long.MAX_VALUE));
            for (String group : groups) {
                all = all.thenCombine(
                        table.acknowledged(group, run, attempt),
                        (a, b) -> a.isPresent() && b.isPresent()
                                ? OptionalLong.of(Math.min(a.getAsLong(), b.getAsLong()))
                                : OptionalLong.empty());
            }
            return all;
        };
    }

    @Override
    public void processElement(StreamRecord<T> element) {
        if (element.hasTimestamp()) {
            reconciler.onReading(element.getTimestamp());
        }
    }

    @Override
    public void processElement1(StreamRecord<T> element) {
        processElement(element);
    }

    /**
     * Write units per table and second of event time from the sink's side branch: the next table is sized from their
     * peak.
     */
    @Override
    public void processElement2(StreamRecord<TableLoad> element) {
        state.load.add(element.getValue());
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        super.processWatermark(mark);
        reconciler.onWatermark(mark.getTimestamp());
        state.load.settle(mark.getTimestamp());
        if (state.hasWatermark()) {
            String open = naming.periodTable(naming.calendar().periodOf(state.watermark));
            metrics.openTable(open, state.load.peakOf(open).orElse(0));
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        store.update(List.of(
                SimpleVersionedSerialization.writeVersionAndSerialize(RotationStateSerializer.INSTANCE, state)));
        settings.snapshot(true);
    }

    /**
     * End of input: give the writers a bounded time to write through the last watermark (they
     * finish in their own tasks), and running operations, lowering those tables included, to
     * finish, so their results are kept. Not prewarms ({@link Reconciler#pendingForThisInput}):
     * Flink takes the final checkpoint only once this returns, and a table's warm throughput takes
     * DynamoDB minutes.
     */
    @Override
    public void finish() throws Exception {
        long deadline = System.nanoTime() + options.finishTimeout().toNanos();
        long nextPoll = 0;
        while ((reconciler.pendingForThisInput() > 0 || reconciler.awaitingWriters()) && System.nanoTime() < deadline) {
            if (System.nanoTime() >= nextPoll) {
                reconciler.pollWriters();
                nextPoll = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FINISH_POLL_MILLIS);
            }
            if (!mailbox.tryYield()) {
                Thread.sleep(10);
            }
        }
        if (reconciler.awaitingWriters()) {
            LOG.warn("Rotation finishing before the sink writers wrote through its last watermark: closed tables"
                    + " stay at their tier until the next run lowers them");
        }
        if (reconciler.pendingForThisInput() > 0) {
            LOG.warn("Rotation finishing with {} table operations still running", reconciler.pendingForThisInput());
        }
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            if (reconciler != null) {
                reconciler.close();
            }
            if (manager != null) {
                manager.close();
            }
            if (writersClient != null) {
                writersClient.close();
            }
        } finally {
            super.close();
        }
    }
}
