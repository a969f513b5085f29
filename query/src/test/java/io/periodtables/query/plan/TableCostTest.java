package io.periodtables.query.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.TableClass;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/** A table is priced at its class: Standard-IA stores for 40 % and charges capacity 125 %. */
class TableCostTest {
    private static final PeriodTablesConfig CONFIG = ConfigLoader.fromMap(
            Map.of("tables.prefix", "readings", "tables.period", "P1D", "tables.capacity.older", "1/1"), false);

    private static TableDescription olderTable(TableClass tableClass) {
        return TableDescription.builder()
                .tableName("readings_2026-11-01")
                .billingModeSummary(b -> b.billingMode(BillingMode.PROVISIONED))
                .provisionedThroughput(p -> p.writeCapacityUnits(1L).readCapacityUnits(1L))
                .itemCount(1_000_000L)
                .tableSizeBytes(10_000_000_000L)
                .tableClassSummary(c -> c.tableClass(tableClass))
                .build();
    }

    @Test
    void standardInfrequentAccessStoresCheaperAndChargesCapacityDearer() {
        TableCost standard = TableCost.of(olderTable(TableClass.STANDARD), CONFIG, Prices.usEast1());
        TableCost ia = TableCost.of(olderTable(TableClass.STANDARD_INFREQUENT_ACCESS), CONFIG, Prices.usEast1());

        assertThat(standard.tier()).isEqualTo("OLDER");
        assertThat(ia.tier()).isEqualTo("OLDER-IA");
        assertThat(standard.monthly().storage()).isCloseTo(10 * 0.25, within(1e-9));
        assertThat(ia.monthly().storage()).isCloseTo(10 * 0.10, within(1e-9));
        assertThat(ia.monthly().writes()).isCloseTo(730 * 0.00065 * 1.25, within(1e-9));
        assertThat(ia.monthly().reads()).isCloseTo(730 * 0.00013 * 1.25, within(1e-9));
        assertThat(standard.onDemandLimits()).isEmpty();
    }

    /** Each kind of table {@code cost} can print is explained in docs/query.md's {@code cost} section. */
    @Test
    void everyKindOfTableCostPrintsIsDocumented() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "query.md"));
        String cost = doc.substring(doc.indexOf("### `cost`"), doc.indexOf("### As a library"));
        Map<String, String> kinds = new LinkedHashMap<>();
        kinds.put("readings_late_2026-11", "late");
        kinds.put("readings_rejected", "rejected");
        kinds.put("readings_rollups_2026-11-01", "rollups");
        kinds.put("readings_latest", "latest");
        kinds.put("readings_writers", "writers");
        kinds.put("readings_something", "other");
        kinds.forEach((table, kind) -> {
            assertThat(TableCost.tier(table, Capacity.ON_DEMAND, CONFIG))
                    .as(table)
                    .isEqualTo(kind);
            assertThat(cost).as("docs/query.md, cost").contains("`" + kind + "`");
        });
    }

    @Test
    void anOnDemandTableShowsItsWarmThroughputAndCeiling() {
        TableDescription d = TableDescription.builder()
                .tableName("readings_2026-11-02")
                .billingModeSummary(b -> b.billingMode(BillingMode.PAY_PER_REQUEST))
                .warmThroughput(w -> w.writeUnitsPerSecond(10_000L).readUnitsPerSecond(12_000L))
                .onDemandThroughput(o -> o.maxWriteRequestUnits(20_000L).maxReadRequestUnits(40_000L))
                .build();
        assertThat(TableCost.of(d, CONFIG, Prices.usEast1()).onDemandLimits())
                .isEqualTo("warm 10000 w/s, max 20000/40000");
    }
}
