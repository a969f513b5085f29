package io.periodtables.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.period.TableNaming;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The summary's line of writes by table kind, from the writers' counters. */
class WriteUnitsSummaryTest {

    @Test
    void writesAreSummedByTableKindAndDividedByTheStoredReadings() {
        TableNaming naming = ConfigLoader.fromMap(Map.of("tables.prefix", "localrun", "tables.period", "PT1M"), true)
                .naming();
        Map<String, Long> perTable = Map.of(
                "localrun_2026-11-27T1728", 8_251L,
                "localrun_2026-11-27T1729", 12_000L,
                "localrun_rollups_2026-11-27T1729", 1_400L,
                "localrun_late_2026-11", 10L,
                "localrun_rejected", 3L);

        assertThat(WriteUnitsSummary.line(naming, perTable, 2_026))
                .isEqualTo(
                        "writes by table (a write unit each up to 1 KB): period 20,251 + latest 2,026 + rollups 1,400"
                                + " + late 10 + rejected 3 = 23,690, 1.169 per stored reading");
    }
}
