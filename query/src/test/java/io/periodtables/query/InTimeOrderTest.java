package io.periodtables.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InTimeOrderTest {

    private static StoredReading reading(String at, String hash, String table) {
        String sk = at + "#" + hash;
        return new StoredReading("d", Instant.parse(at), sk, table, 0, Map.of(), null);
    }

    private static boolean isLate(String table) {
        return table.contains("_late_");
    }

    @Test
    void lateReadingsAreMergedIntoThePeriodReadingsBySortKey() {
        List<StoredReading> out = new ArrayList<>();
        QueryReport.Builder report = new QueryReport.Builder();
        InTimeOrder merge = new InTimeOrder(
                List.of(
                        reading("2026-11-22T11:30:00.000Z", "0000000b", "r_late_2026-12"),
                        reading("2026-11-22T09:00:00.000Z", "0000000a", "r_late_2026-12"),
                        reading("2026-11-22T13:00:00.000Z", "0000000c", "r_late_2026-12")),
                InTimeOrderTest::isLate,
                out::add,
                report);

        merge.offer(reading("2026-11-22T10:00:00.000Z", "00000001", "r_2026-11-22T1000"));
        merge.offer(reading("2026-11-22T11:00:00.000Z", "00000002", "r_2026-11-22T1100"));
        merge.offer(reading("2026-11-22T12:00:00.000Z", "00000003", "r_2026-11-22T1200"));
        merge.finish();

        assertThat(out)
                .extracting(StoredReading::sk)
                .containsExactly(
                        "2026-11-22T09:00:00.000Z#0000000a", "2026-11-22T10:00:00.000Z#00000001",
                        "2026-11-22T11:00:00.000Z#00000002", "2026-11-22T11:30:00.000Z#0000000b",
                        "2026-11-22T12:00:00.000Z#00000003", "2026-11-22T13:00:00.000Z#0000000c");
        assertThat(report.build().readings()).isEqualTo(6);
    }

    @Test
    void aReadingStoredTwiceIsReturnedOnceFromTheNewestLateTable() {
        List<StoredReading> out = new ArrayList<>();
        QueryReport.Builder report = new QueryReport.Builder();
        InTimeOrder merge = new InTimeOrder(
                List.of(
                        reading("2026-11-22T11:00:00.000Z", "00000002", "r_late_2026-11"),
                        reading("2026-11-22T11:00:00.000Z", "00000002", "r_late_2026-12")),
                InTimeOrderTest::isLate,
                out::add,
                report);

        merge.offer(reading("2026-11-22T11:00:00.000Z", "00000002", "r_2026-11-22T1100"));
        merge.offer(reading("2026-11-22T11:00:00.000Z", "00000003", "r_2026-11-22T1100"));
        merge.finish();

        assertThat(out).extracting(StoredReading::table).containsExactly("r_late_2026-12", "r_2026-11-22T1100");
        assertThat(report.build().duplicatesDropped()).isEqualTo(2);
    }
}
