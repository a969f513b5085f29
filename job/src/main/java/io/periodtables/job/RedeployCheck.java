package io.periodtables.job;

import io.periodtables.core.config.ConfigException;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.config.RedeploySettings;
import io.periodtables.model.SinkRecord;
import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Chained to the source, keeps the {@link RedeploySettings} and refuses a restore that changed
 * one before the first record passes to the sinks. The refusal suppresses restarts: a restart
 * would restore the same savepoint under the same settings and fail again.
 */
@Internal
final class RedeployCheck extends AbstractStreamOperator<SinkRecord>
        implements OneInputStreamOperator<SinkRecord, SinkRecord> {
    private static final long serialVersionUID = 1L;

    private final PeriodTablesConfig config;
    private transient RedeploySettings settings;

    RedeployCheck(PeriodTablesConfig config) {
        this.config = config;
        setChainingStrategy(ChainingStrategy.ALWAYS);
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        try {
            settings = RedeploySettings.restore(context.getOperatorStateStore(), context.isRestored(), config);
        } catch (ConfigException refused) {
            throw new SuppressRestartsException(refused);
        }
    }

    @Override
    public void processElement(StreamRecord<SinkRecord> element) {
        output.collect(element);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        settings.snapshot(getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0);
    }
}
