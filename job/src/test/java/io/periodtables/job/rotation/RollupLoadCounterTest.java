package io.periodtables.job.rotation;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.model.SinkRecord;
import io.periodtables.rotation.lifecycle.TableLoad;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The rollups tables' write load counts an item's write units by its DynamoDB size, not its characters. */
class RollupLoadCounterTest {

    @Test
    void anItemOfFewerThan1024CharactersButMoreThan1024Utf8BytesCostsTwoWriteUnits() throws Exception {
        String item = "{\"pk\":\"" + "é".repeat(600) + "\",\"readings\":1}";
        assertThat(item.length()).isLessThan(1024);

        assertThat(writeUnits(SinkRecord.item("r_rollups_2026-11", item))).isEqualTo(2);
    }

    @Test
    void aSmallItemCostsOneWriteUnit() throws Exception {
        assertThat(writeUnits(SinkRecord.item("r_rollups_2026-11", "{\"pk\":\"d-1\",\"readings\":1}")))
                .isEqualTo(1);
    }

    private static long writeUnits(SinkRecord record) throws Exception {
        try (OneInputStreamOperatorTestHarness<SinkRecord, TableLoad> harness =
                new OneInputStreamOperatorTestHarness<>(new RollupLoadCounter())) {
            harness.open();
            harness.processElement(new StreamRecord<>(record, 1_000L));
            harness.processWatermark(10_000L);
            return harness.extractOutputValues().stream()
                    .mapToLong(TableLoad::writeUnits)
                    .sum();
        }
    }
}
