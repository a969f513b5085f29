package io.periodtables.job.rollups;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.item.Rollups;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.contrib.streaming.state.RocksDBOptionsFactory;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

/**
 * A hot device on RocksDB: one device at 1,000 readings a second for two and a half minutes of
 * event time, with {@code rollups.exact-within} a minute so that whole minutes of sort keys expire
 * during the run. The bytes the rollups operator reads from and writes to RocksDB per reading
 * (RocksDB's own counters: gets, iterators, writes) stay flat as a minute's sort keys accumulate:
 * no state value grows with the device's rate.
 */
class RollupHotDeviceTest {

    private static final Instant DAY = Instant.parse("2025-06-01T00:00:00Z");
    private static final int PER_SECOND = 1000;
    /** At most this many bytes read and written per reading, on average over any stretch from the start. */
    private static final long BOUND = 1500;

    @Test
    void theBytesTouchedPerReadingStayFlatAtAThousandReadingsASecond() throws Exception {
        PeriodTablesConfig config = ConfigLoader.fromMap(
                Map.of("tables.period", "P1D", "rollups.every", "PT1M,PT1H", "rollups.exact-within", "PT1M"), false);
        EmbeddedRocksDBStateBackend rocksdb = new EmbeddedRocksDBStateBackend(true);
        rocksdb.setRocksDBOptions(new CountingOptions());
        // RocksDB's own default buffers: the harness's few MB of managed memory flush and compact all the time
        rocksdb.getMemoryConfiguration().setUseManagedMemory(false);
        try (var harness = new KeyedOneInputStreamOperatorTestHarness<>(
                RollupBuckets.operator(config, Rollups.of(config).orElseThrow()),
                (SinkRecord record) -> record.reading().deviceId(),
                Types.STRING)) {
            harness.setStateBackend(rocksdb);
            harness.open();
            long start = bytes();
            long firstMinute = 0;
            long lastMinuteFrom = 0;
            int readings = 150 * PER_SECOND;
            for (int n = 0; n < readings; n++) {
                long t = DAY.toEpochMilli() + n * 1000L / PER_SECOND;
                harness.processElement(
                        SinkRecord.period(new Reading("hot", t, null, "{\"temp\":" + (n % 300) + "}")), t);
                if (n % 100 == 99) {
                    harness.processWatermark(t - 5000);
                }
                if (n % 1000 == 999) {
                    long touched = bytes() - start;
                    assertThat(touched / (n + 1))
                            .as("bytes read and written per reading over the first %,d readings", n + 1)
                            .isLessThanOrEqualTo(BOUND);
                }
                if (n == 60_000 - 1) {
                    firstMinute = bytes() - start;
                } else if (n == readings - 60_000 - 1) {
                    lastMinuteFrom = bytes();
                }
            }
            long lastMinute = bytes() - lastMinuteFrom;
            System.out.printf(
                    "rollups on RocksDB at %,d readings/s of one device: %,d bytes a reading in the first minute, "
                            + "%,d in the last (the first minute's 60,000 sort keys expiring at 02:00)%n",
                    PER_SECOND, firstMinute / 60_000, lastMinute / 60_000);
            assertThat(lastMinute / 60_000)
                    .as("bytes a reading in the last minute")
                    .isLessThanOrEqualTo(firstMinute / 60_000 * 3 / 2);
        }
    }

    /** Bytes RocksDB read (gets and iterators) and wrote (puts, deletes, batches) since the backend started. */
    private static long bytes() {
        Statistics s = CountingOptions.statistics;
        return s.getTickerCount(TickerType.BYTES_READ)
                + s.getTickerCount(TickerType.ITER_BYTES_READ)
                + s.getTickerCount(TickerType.BYTES_WRITTEN);
    }

    /** RocksDB with its statistics on, in one static {@link Statistics} the test reads. */
    private static final class CountingOptions implements RocksDBOptionsFactory {
        private static final long serialVersionUID = 1L;
        static Statistics statistics;

        @Override
        public DBOptions createDBOptions(DBOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
            statistics = new Statistics();
            handlesToClose.add(statistics);
            return currentOptions.setStatistics(statistics);
        }

        @Override
        public ColumnFamilyOptions createColumnOptions(
                ColumnFamilyOptions currentOptions, Collection<AutoCloseable> handlesToClose) {
            return currentOptions;
        }
    }
}
