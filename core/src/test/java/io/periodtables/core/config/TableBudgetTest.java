package io.periodtables.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TableBudgetTest {

    private static PeriodTablesConfig load(String... args) {
        return ConfigLoader.load(args, Map.of(), true);
    }

    @Test
    void hourlyTablesKeptFor400DaysStopTheJobAtStartNamingRetentionPeriodAndTheLimit() {
        assertThatThrownBy(() -> load("--tables.period", "PT1H", "--tables.retention", "P400D"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid configuration: tables.retention = 'P400D' with tables.period = 'PT1H' keeps up to"
                        + " 9,621 tables, above limits.max-tables = 2500: shorten tables.retention, lengthen tables.period,"
                        + " or raise limits.max-tables to your account's DynamoDB table quota")
                .satisfies(e -> assertThat(((ConfigException) e).key()).isEqualTo("tables.retention"))
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aHigherTableQuotaLetsTheSameConfigurationStart() {
        assertThat(load("--tables.period", "PT1H", "--tables.retention", "P400D", "--limits.max-tables", "10000")
                        .find(TableKeys.TABLES_RETENTION))
                .contains(Duration.ofDays(400));
    }

    @Test
    void provisionedWriteCapacityAboveTheQuotaStopsTheJob() {
        assertThatThrownBy(() -> load(
                        "--tables.period", "PT1H", "--tables.retention", "P30D", "--tables.capacity.older", "200/1"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(
                        "Invalid configuration: tables.retention = 'P30D' with tables.period = 'PT1H'"
                                + " and tables.capacity.* provisions up to 145,801 WCU, above limits.max-write-capacity = 80000")
                .satisfies(
                        e -> assertThat(e.getMessage()).isEqualTo(e.getMessage().trim()));
    }

    @Test
    void theBudgetCountsPeriodLateAndRejectedTablesAndTheTiersWriteUnits() {
        PeriodTablesConfig daily = load("--tables.retention", "P400D");
        TableBudget budget = TableBudget.of(daily);
        // 400 period tables that ended within the retention + current + next, 15 late months + this one, rejected.
        assertThat(budget.tables(Duration.ofDays(400))).isEqualTo(402 + 15 + 1 + 1 + 1 + 1);
        // Two open tables (lead + lateness fit in a day), one previous, the rest older.
        assertThat(budget.writeCapacity(Duration.ofDays(400))).isEqualTo(2 * 1000 + 1 + 399);
        assertThat(budget.warning()).isEmpty();
    }

    @Test
    void withoutRetentionTheJobStartsWithAWarning() {
        assertThat(TableBudget.of(load()).warning())
                .hasValueSatisfying(w -> assertThat(w)
                        .contains("tables.retention is not set")
                        .contains("managedTables")
                        .contains("provisionedWriteCapacity"));
    }

    @Test
    void onDemandTablesProvisionNoWriteCapacity() {
        assertThat(TableBudget.of(load("--tables.billing", "PAY_PER_REQUEST")).writeCapacity(Duration.ofDays(30)))
                .isZero();
    }
}
