package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The checker itself: it passes exactly the expected tables and catches a lost item, a reading
 * stored twice (period and late table), a changed attribute, an unexpected item, and a late table
 * of the wrong month. A check that cannot fail would prove nothing.
 */
class ExactlyOnceCheckTest {
    private static final Instant START = Instant.parse("2026-11-22T15:00:00Z");
    private static final Instant END = START.plusSeconds(5);

    private final PeriodTablesConfig config = ConfigLoader.fromMap(
            Map.of(
                    "tables.prefix",
                    "chk",
                    "tables.period",
                    "PT1H",
                    "tables.shards",
                    "2",
                    "dynamodb.endpoint",
                    "http://127.0.0.1:1"),
            false);
    private final ExpectedTables expected = ExpectedTables.of(config, Fleet.standard(), START);

    /** The tables as a correct run leaves them: the expected items, late ones in the watermark month's late table. */
    private Map<ItemRef, Map<String, AttributeValue>> correct() {
        Map<ItemRef, Map<String, AttributeValue>> items = new TreeMap<>();
        expected.items().forEach((ref, item) -> {
            Map<String, AttributeValue> stored = new TreeMap<>(item);
            if (ref.table().equals(config.naming().rejectedTable())) {
                stored.put(
                        "arrivedAt", AttributeValue.fromS(START.plusSeconds(1).toString()));
            }
            items.put(ref, stored);
        });
        return items;
    }

    private TableSnapshot snapshot(Map<ItemRef, Map<String, AttributeValue>> items, String lateTable) {
        return new TableSnapshot(items, Set.of(config.naming().rejectedTable(), lateTable), Set.of(lateTable));
    }

    private void check(Map<ItemRef, Map<String, AttributeValue>> items) {
        ExactlyOnceCheck.assertExactlyOnce(
                expected, snapshot(items, config.naming().lateTable(Fleet.T0)), START, END);
    }

    @Test
    void theExpectedTablesPass() {
        assertThat(expected.readings()).hasSizeGreaterThan(360);
        assertThat(expected.lateReadings()).isEqualTo(1);
        check(correct());
    }

    @Test
    void aLostReadingIsReported() {
        Map<ItemRef, Map<String, AttributeValue>> items = correct();
        ItemRef lost = items.keySet().stream()
                .filter(ref -> ref.table().equals("chk_2025-06-01T0900"))
                .findFirst()
                .orElseThrow();
        items.remove(lost);

        assertThatThrownBy(() -> check(items))
                .hasMessageContaining("1 missing:")
                .hasMessageContaining(lost.toString());
    }

    @Test
    void aReadingInItsPeriodTableAndTheLateTableIsReportedAsStoredTwice() {
        Map<ItemRef, Map<String, AttributeValue>> items = correct();
        ItemRef late = items.keySet().stream()
                .filter(ref -> ref.table().equals(ExpectedTables.LATE))
                .findFirst()
                .orElseThrow();
        items.put(new ItemRef("chk_2025-06-01T0800", late.pk(), late.sk()), items.get(late));

        assertThatThrownBy(() -> check(items))
                .hasMessageContaining("1 stored twice:")
                .hasMessageContaining(late.pk())
                .hasMessageContaining("1 unexpected:");
    }

    @Test
    void aChangedAttributeIsReported() {
        Map<ItemRef, Map<String, AttributeValue>> items = correct();
        ItemRef changed = items.keySet().stream()
                .filter(ref -> ref.table().equals("chk_2025-06-01T1000"))
                .findFirst()
                .orElseThrow();
        Map<String, AttributeValue> item = new TreeMap<>(items.get(changed));
        item.put("temp", AttributeValue.fromN("-1"));
        items.put(changed, item);

        assertThatThrownBy(() -> check(items))
                .hasMessageContaining("1 different:")
                .hasMessageContaining(changed.toString());
    }

    @Test
    void numbersCompareByValueNotByText() {
        Map<String, AttributeValue> asWritten = Map.of(
                "temp",
                AttributeValue.fromN("21.50"),
                "meta",
                AttributeValue.fromM(Map.of("rssi", AttributeValue.fromN("1E+2"))));
        Map<String, AttributeValue> asRead = Map.of(
                "temp",
                AttributeValue.fromN("21.5"),
                "meta",
                AttributeValue.fromM(Map.of("rssi", AttributeValue.fromN("100"))));

        assertThat(Attributes.canonical(asWritten)).isEqualTo(Attributes.canonical(asRead));
    }

    @Test
    void aRejectionThatArrivedOutsideTheRunIsReported() {
        Map<ItemRef, Map<String, AttributeValue>> items = correct();
        ItemRef rejection = items.keySet().stream()
                .filter(r -> r.table().equals("chk_rejected"))
                .findFirst()
                .orElseThrow();
        Map<String, AttributeValue> item = new TreeMap<>(items.get(rejection));
        item.put("arrivedAt", AttributeValue.fromS("2020-01-01T00:00:00Z"));
        items.put(rejection, item);

        assertThatThrownBy(() -> check(items))
                .hasMessageContaining("arrivedAt 2020-01-01T00:00:00Z is outside the run");
    }

    @Test
    void aLateTableOfAnotherMonthIsReported() {
        assertThatThrownBy(() -> ExactlyOnceCheck.assertExactlyOnce(
                        expected, snapshot(correct(), "chk_late_2026-01"), START, END))
                .hasMessageContaining("late table chk_late_2026-01 is not of the months of the watermarks")
                .hasMessageContaining("chk_late_2025-06");
    }
}
