package io.periodtables.bench;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.job.InputSource;
import io.periodtables.job.input.ParsingGenerator;
import io.periodtables.job.input.ReadingParser;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;

/**
 * Readings and their JSON records, built before a run and handed to the MiniCluster's sources
 * through static fields (the cluster runs in this JVM): the sink contenders then measure
 * writing, and the full job parsing and writing, not generating.
 */
public final class PrebuiltReadings {

    private static volatile Reading[] readings = new Reading[0];
    private static volatile byte[][] records = new byte[0][];

    private PrebuiltReadings() {}

    /** Readings {@code 0..n-1} of {@code fleet} and the JSON records they were parsed from. */
    public static void set(FleetReadings fleet, int n) {
        readings = fleet.readings(n);
        records = fleet.records(n);
    }

    /**
     * The full job's input: the first {@code n} JSON records, parsed in the source by the job's
     * parser as a Kinesis source's records are, with no generator and no rate limiter in the
     * measured path (the local run's generator is neither free nor part of a production job).
     * Under the generator's uid, at parallelism 1, like the generator.
     */
    public static InputSource jsonRecords(PeriodTablesConfig config, long n) {
        return new InputSource(
                new DataGeneratorSource<>(
                        new ParsingGenerator(config, "generator", PrebuiltReadings::record),
                        n,
                        TypeInformation.of(SinkRecord.class)),
                "generator-source",
                "Prebuilt records",
                1,
                false);
    }

    private static byte[] record(long n) {
        return records[(int) n];
    }

    public static Reading[] all() {
        return readings;
    }

    /** Reading {@code n} as a period record, for {@code PeriodTableSink}. */
    public static final class AsSinkRecords implements GeneratorFunction<Long, SinkRecord> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkRecord map(Long n) {
            return SinkRecord.period(readings[n.intValue()]);
        }
    }

    /**
     * Reading {@code n} parsed from its JSON record by the job's parser, for the stock sink's
     * element converter: the parse a stock-sink user reading the same records must do too.
     */
    static final class ParsedReadings implements GeneratorFunction<Long, Reading> {
        private static final long serialVersionUID = 1L;

        private final PeriodTablesConfig config;
        private transient ReadingParser parser;
        private transient Reading parsed;

        ParsedReadings(PeriodTablesConfig config) {
            this.config = config;
        }

        @Override
        public void open(SourceReaderContext readerContext) {
            parser = new ReadingParser(config);
        }

        @Override
        public Reading map(Long n) {
            parsed = null;
            parser.parse(records[n.intValue()], "bench", System.currentTimeMillis(), r -> parsed = r, rejection -> {
                throw new IllegalStateException("a prebuilt record was rejected: " + rejection);
            });
            return parsed;
        }
    }

    /** Reading {@code n} itself, for the stock sink's element converter. */
    static final class AsReadings implements GeneratorFunction<Long, Reading> {
        private static final long serialVersionUID = 1L;

        @Override
        public Reading map(Long n) {
            return readings[n.intValue()];
        }
    }
}
