package io.periodtables.job.input;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.SinkRecord;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/**
 * Parses a Kinesis record inside the source, so that event time is known while Flink still
 * knows the record's shard ({@link io.periodtables.job.time.SplitEventTime SplitEventTime}). A
 * record becomes one
 * {@link SinkRecord#period period record} per reading and one {@link SinkRecord#rejected
 * rejected record} per problem; it never throws for bad input, so a poison record cannot
 * crash-loop the job.
 */
@Internal
public final class ParsingSchema implements DeserializationSchema<SinkRecord> {
    private static final long serialVersionUID = 1L;

    private final PeriodTablesConfig config;
    private final String origin;
    private transient ReadingParser parser;

    public ParsingSchema(PeriodTablesConfig config, String origin) {
        this.config = config;
        this.origin = origin;
    }

    @Override
    public void open(InitializationContext context) {
        parser = new ReadingParser(config);
    }

    @Override
    public void deserialize(byte[] message, Collector<SinkRecord> out) {
        parse(message, origin, out);
    }

    public void parse(byte[] message, String recordOrigin, Collector<SinkRecord> out) {
        if (parser == null) {
            parser = new ReadingParser(config);
        }
        parser.parse(
                message,
                recordOrigin,
                System.currentTimeMillis(),
                reading -> out.collect(SinkRecord.period(reading)),
                rejection -> out.collect(SinkRecord.rejected(rejection)));
    }

    @Override
    public SinkRecord deserialize(byte[] message) {
        throw new UnsupportedOperationException(
                "one record may hold several readings: use deserialize(byte[], Collector)");
    }

    @Override
    public boolean isEndOfStream(SinkRecord nextElement) {
        return false;
    }

    @Override
    public TypeInformation<SinkRecord> getProducedType() {
        return TypeInformation.of(SinkRecord.class);
    }
}
