package io.periodtables.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TableThroughputQuotaTest {

    private static PeriodTablesConfig load(String... args) {
        return ConfigLoader.load(args, Map.of(), true);
    }

    @Test
    void aLatestWarmThroughputAboveTheDefaultQuotaStopsTheJobAtStartNamingTheKey() {
        assertThatThrownBy(() -> load("--latest.warm-writes", "50000"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid configuration: latest.warm-writes = '50000': asks a table for more write units a"
                        + " second than limits.max-table-units = 40000, the per-table throughput quota: lower it, or"
                        + " have the quota raised and set limits.max-table-units to it")
                .satisfies(e -> assertThat(((ConfigException) e).key()).isEqualTo("latest.warm-writes"));
    }

    @Test
    void aRaisedQuotaLetsTheSameWarmThroughputStart() {
        assertThat(load("--latest.warm-writes", "50000", "--limits.max-table-units", "60000")
                        .find(ConfigKeys.LATEST_WARM_WRITES))
                .contains(50000);
    }

    @Test
    void anOnDemandCeilingAboveTheQuotaStopsTheJob() {
        assertThatThrownBy(() -> load("--tables.billing", "PAY_PER_REQUEST", "--tables.on-demand.max", "1000/45000"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Invalid configuration: tables.on-demand.max = '1000/45000': asks a table for"
                        + " more units (write/read) than limits.max-table-units = 40000");
    }

    @Test
    void aProvisionedTierAboveALoweredQuotaStopsTheJobAndOnDemandTiersAreNotCounted() {
        assertThatThrownBy(() -> load(
                        "--limits.max-table-units", "3000",
                        "--tables.capacity.current.max", "3000/3000",
                        "--tables.warm-throughput.max", "3000/3000",
                        "--tables.capacity.previous", "3500/1"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Invalid configuration: tables.capacity.previous = '3500/1': asks a table for"
                        + " more units (write/read) than limits.max-table-units = 3000");
        assertThat(load(
                                "--limits.max-table-units", "3000",
                                "--tables.capacity.current.max", "3000/3000",
                                "--tables.warm-throughput.max", "3000/3000",
                                "--tables.capacity.current", "on-demand")
                        .get(ConfigKeys.LIMITS_MAX_TABLE_UNITS))
                .isEqualTo(3000L);
    }
}
