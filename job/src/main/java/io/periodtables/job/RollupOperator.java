package io.periodtables.job;

import io.periodtables.model.SinkRecord;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;

/**
 * The rollups operator ({@link RollupBuckets}): on a restore it first upgrades the state a
 * savepoint of an earlier release holds ({@link RollupStateUpgrade}), and it gives the function
 * its keyed state backend, whose namespaces the duplicate check keeps its sort keys in.
 */
final class RollupOperator extends KeyedProcessOperator<String, SinkRecord, SinkRecord> {
    private static final long serialVersionUID = 1L;

    RollupOperator(RollupBuckets buckets) {
        super(buckets);
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        RollupBuckets buckets = (RollupBuckets) userFunction;
        KeyedStateBackend<String> backend = getKeyedStateBackend();
        if (context.isRestored()) {
            new RollupStateUpgrade(backend, buckets.rollups(), buckets.exactWithin()).run();
        }
        buckets.useBackend(backend);
    }
}
