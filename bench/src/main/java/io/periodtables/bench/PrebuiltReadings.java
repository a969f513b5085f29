package io.periodtables.bench;

import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;

import org.apache.flink.connector.datagen.source.GeneratorFunction;

/**
 * Readings built before a run and handed to the MiniCluster's sources through a static field
 * (the cluster runs in this JVM): the sink contenders then measure writing, not generating.
 */
final class PrebuiltReadings {

    private static volatile Reading[] readings = new Reading[0];

    private PrebuiltReadings() {}

    static void set(Reading[] value) {
        readings = value;
    }

    static Reading[] all() {
        return readings;
    }

    /** Reading {@code n} as a period record, for {@code PeriodTableSink}. */
    static final class AsSinkRecords implements GeneratorFunction<Long, SinkRecord> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkRecord map(Long n) {
            return SinkRecord.period(readings[n.intValue()]);
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
