package io.periodtables.job;

import io.periodtables.core.config.UserMetrics;
import io.periodtables.job.time.ShardLateness;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Splits the source's parsed records: readings for their period go on to the period windows,
 * readings the source judged late ({@link ShardLateness}) leave through {@link #LATE}, rejections
 * through {@link #REJECTED}. Counts readings ({@code readingsIn}) and rejections
 * ({@code readingsRejected}). Chained to the source.
 */
@Internal
final class SplitRejected extends ProcessFunction<SinkRecord, Reading> {
    private static final long serialVersionUID = 1L;

    /** Input that cannot become an item, with its reason. */
    static final OutputTag<SinkRecord> REJECTED = new OutputTag<>("rejected", TypeInformation.of(SinkRecord.class));
    /** Readings late against their own shard's watermark. */
    static final OutputTag<SinkRecord> LATE = new OutputTag<>("late-in-shard", TypeInformation.of(SinkRecord.class));

    private transient Counter readingsIn;
    private transient Counter rejected;

    @Override
    public void open(OpenContext openContext) {
        readingsIn = UserMetrics.of(getRuntimeContext().getMetricGroup()).counter(UserMetrics.READINGS_IN);
        rejected = UserMetrics.of(getRuntimeContext().getMetricGroup()).counter(UserMetrics.READINGS_REJECTED);
    }

    @Override
    public void processElement(SinkRecord record, Context ctx, Collector<Reading> out) {
        switch (record.kind()) {
            case PERIOD -> {
                readingsIn.inc();
                out.collect(record.reading());
            }
            case LATE -> {
                readingsIn.inc();
                ctx.output(LATE, record);
            }
            case REJECTED -> {
                rejected.inc();
                ctx.output(REJECTED, record);
            }
        }
    }
}
