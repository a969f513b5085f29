package io.periodtables.rotation.operator;

import io.periodtables.rotation.lifecycle.TableLoad;
import io.periodtables.rotation.reconcile.RotationEvent;
import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperatorFactory;

/** Builds {@link RotationOperator} with the task's mailbox executor; never chained, so it runs on its own. */
@Internal
public final class RotationOperatorFactory<T> extends AbstractStreamOperatorFactory<RotationEvent>
        implements OneInputStreamOperatorFactory<T, RotationEvent>,
                TwoInputStreamOperatorFactory<T, TableLoad, RotationEvent> {
    private static final long serialVersionUID = 1L;

    private final RotationOptions options;

    public RotationOperatorFactory(RotationOptions options) {
        this.options = options;
        setChainingStrategy(ChainingStrategy.NEVER);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <O extends StreamOperator<RotationEvent>> O createStreamOperator(
            StreamOperatorParameters<RotationEvent> parameters) {
        return (O) new RotationOperator<T>(options, parameters);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
        return RotationOperator.class;
    }
}
