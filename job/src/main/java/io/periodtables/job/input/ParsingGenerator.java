package io.periodtables.job.input;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.SinkRecord;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.datagen.source.GeneratorFunction;

/**
 * A generator of records (the synthetic fleet) parsed inside the source like a Kinesis record
 * ({@link ParsingSchema}), so that the source's watermark sees each reading's event time. A
 * generator yields one value per index: each generated record must hold exactly one reading
 * (or be one rejection).
 */
@Internal
public final class ParsingGenerator implements GeneratorFunction<Long, SinkRecord> {
    private static final long serialVersionUID = 1L;

    /** The bytes of record {@code n}; a pure function of {@code n}, so a restored source repeats it. */
    @FunctionalInterface
    public interface Records extends java.io.Serializable {
        byte[] record(long n) throws Exception;
    }

    private final Records records;
    private final String origin;
    private final ParsingSchema schema;

    public ParsingGenerator(PeriodTablesConfig config, String origin, Records records) {
        this.records = records;
        this.origin = origin;
        this.schema = new ParsingSchema(config, origin);
    }

    @Override
    public void open(SourceReaderContext readerContext) {
        schema.open(null);
    }

    @Override
    public SinkRecord map(Long n) throws Exception {
        List<SinkRecord> out = new ArrayList<>(1);
        schema.parse(records.record(n), origin + ":" + n, new ListCollector(out));
        if (out.size() != 1) {
            throw new IllegalStateException("generated record " + n + " holds " + out.size()
                    + " readings or rejections; a generator yields exactly one per record");
        }
        return out.get(0);
    }

    private record ListCollector(List<SinkRecord> list) implements org.apache.flink.util.Collector<SinkRecord> {
        @Override
        public void collect(SinkRecord record) {
            list.add(record);
        }

        @Override
        public void close() {}
    }
}
