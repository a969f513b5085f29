package io.periodtables.job;

import io.periodtables.conf.UserMetrics;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.sink.Reading;
import io.periodtables.sink.Rejection;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The parse-and-validate step: readings go on, rejections leave through {@link #REJECTED}.
 * Counts both ({@code readingsIn}, {@code readingsRejected}).
 */
@Internal
public final class ParseRecords extends ProcessFunction<RawRecord, Reading> {
    private static final long serialVersionUID = 1L;

    /** Input that cannot become an item, with its reason. */
    public static final OutputTag<Rejection> REJECTED = new OutputTag<>("rejected", TypeInformation.of(Rejection.class));

    private final PeriodTablesConfig config;
    private transient ReadingParser parser;
    private transient Counter readingsIn;
    private transient Counter rejected;

    public ParseRecords(PeriodTablesConfig config) {
        this.config = config;
    }

    @Override
    public void open(OpenContext openContext) {
        parser = new ReadingParser(config);
        readingsIn = UserMetrics.of(getRuntimeContext().getMetricGroup()).counter("readingsIn");
        rejected = UserMetrics.of(getRuntimeContext().getMetricGroup()).counter("readingsRejected");
    }

    @Override
    public void processElement(RawRecord record, Context ctx, Collector<Reading> out) {
        parser.parse(record.data(), record.origin(), ctx.timerService().currentProcessingTime(),
                reading -> {
                    readingsIn.inc();
                    out.collect(reading);
                },
                rejection -> {
                    rejected.inc();
                    ctx.output(REJECTED, rejection);
                });
    }
}
