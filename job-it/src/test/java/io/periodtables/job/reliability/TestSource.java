package io.periodtables.job.reliability;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.job.InputSource;
import io.periodtables.job.PeriodTablesTopology;
import io.periodtables.job.input.ReadingParser;
import io.periodtables.model.SinkRecord;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A bounded {@link TestInput} as the production topology's source: {@link PeriodTablesTopology}
 * runs unchanged, its uids included. Like the Kinesis source, it parses each record inside the
 * source (a record holding an array yields one element per reading or rejection), so event time
 * is tracked per split exactly as in production. It runs at parallelism 1 (one "shard"), so
 * which readings are late follows from the input's order and {@link ExpectedTables} predicts it.
 */
final class TestSource {

    private TestSource() {}

    /** How fast the source emits, and a process fault it injects. */
    static final class Hooks {
        RateLimiterStrategy rate = RateLimiterStrategy.noOp();
        Fault fault = (n, record) -> {};
    }

    /** Called before the source emits element {@code n}; throwing fails the task. */
    @FunctionalInterface
    interface Fault extends Serializable {
        void before(long n, SinkRecord record) throws Exception;
    }

    static void build(StreamExecutionEnvironment env, PeriodTablesConfig config, TestInput input, Hooks hooks) {
        List<byte[]> records = new ArrayList<>(input.data());
        Elements elements = new Elements(config, records, hooks.fault);
        PeriodTablesTopology.build(
                env,
                config,
                InputSource.bounded(new DataGeneratorSource<>(
                        elements, elements.count(), hooks.rate, TypeInformation.of(SinkRecord.class))));
    }

    /** Element {@code n}: the {@code k}-th reading or rejection of the record it falls in, parsed in the source. */
    private static final class Elements implements GeneratorFunction<Long, SinkRecord> {
        private static final long serialVersionUID = 1L;
        private final PeriodTablesConfig config;
        private final List<byte[]> records;
        private final long[] firstElement;
        private final Fault fault;
        private transient ReadingParser parser;

        Elements(PeriodTablesConfig config, List<byte[]> records, Fault fault) {
            this.config = config;
            this.records = records;
            this.fault = fault;
            this.firstElement = new long[records.size() + 1];
            ReadingParser counting = new ReadingParser(config);
            for (int i = 0; i < records.size(); i++) {
                firstElement[i + 1] = firstElement[i] + parse(counting, i).size();
            }
        }

        long count() {
            return firstElement[records.size()];
        }

        @Override
        public SinkRecord map(Long n) throws Exception {
            if (parser == null) {
                parser = new ReadingParser(config);
            }
            int i = java.util.Arrays.binarySearch(firstElement, n);
            int record = i >= 0 ? i : -i - 2;
            while (firstElement[record + 1] == firstElement[record]) {
                record++; // skip records that yield nothing (none do today: an empty array is a rejection)
            }
            SinkRecord element = parse(parser, record).get((int) (n - firstElement[record]));
            fault.before(n, element);
            return element;
        }

        private List<SinkRecord> parse(ReadingParser with, int record) {
            List<SinkRecord> out = new ArrayList<>();
            with.parse(
                    records.get(record),
                    TestInput.ORIGIN,
                    System.currentTimeMillis(),
                    reading -> out.add(SinkRecord.period(reading)),
                    rejection -> out.add(SinkRecord.rejected(rejection)));
            return out;
        }
    }
}
