package io.periodtables.job.rollups;

import io.periodtables.model.SinkRecord;
import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;

/**
 * The rollups operator ({@link RollupBuckets}): on a restore it first upgrades the state and
 * timers a savepoint of an earlier release holds ({@link RollupStateUpgrade}), and it gives the function
 * its keyed state backend, whose namespaces the duplicate check keeps its sort keys in; restored
 * under another {@code window.allowed-lateness}, it sets the period closes again ({@link
 * RollupCloses}).
 */
@Internal
public final class RollupOperator extends KeyedProcessOperator<String, SinkRecord, SinkRecord> {
    private static final long serialVersionUID = 1L;

    /** The upgrade of a restored state; null when the operator starts afresh. */
    private transient RollupStateUpgrade upgrade;
    /** The lateness the period-close timers are set under. */
    private transient RollupCloses closes;

    RollupOperator(RollupBuckets buckets) {
        super(buckets);
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        RollupBuckets buckets = (RollupBuckets) userFunction;
        KeyedStateBackend<String> backend = getKeyedStateBackend();
        if (context.isRestored()) {
            upgrade = new RollupStateUpgrade(backend, buckets.rollups(), buckets.exactWithin());
            upgrade.run();
        }
        buckets.useBackend(backend);
        closes = RollupCloses.restore(context.getOperatorStateStore(), context.isRestored(), buckets.lateness());
    }

    @Override
    public void open() throws Exception {
        super.open();
        if (upgrade != null) {
            // the timer service KeyedProcessOperator.open started, with its timers restored
            upgrade.nameOldRevives(getInternalTimerService("user-timers", VoidNamespaceSerializer.INSTANCE, this));
        }
        if (closes.setUnderAnother()) {
            RollupBuckets buckets = (RollupBuckets) userFunction;
            closes.setAgain(
                    getKeyedStateBackend(),
                    getInternalTimerService("user-timers", VoidNamespaceSerializer.INSTANCE, this),
                    buckets.rollups().calendar());
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        closes.snapshot();
    }
}
