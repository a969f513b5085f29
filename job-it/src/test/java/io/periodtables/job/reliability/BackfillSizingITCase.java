package io.periodtables.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import java.time.Instant;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;

/**
 * Issue 47 on the production topology (write-load counter, rotation operator, dynalite): the same
 * backlog of a fleet writing 5 readings (1 WCU each) a second of event time, minutes 00:00 to
 * 00:02:50, read as fast as the source goes (a backfill) and at 50 a second (ten times slower).
 * 00:03, prebuilt and sized from 00:00 (three back with 55 s of allowed lateness), opens at the
 * fleet's ceil(5 / 0.7) = 8 WCU in both: the read speed sizes no table.
 */
class BackfillSizingITCase {
    private static final Instant T0 = Instant.parse("2025-03-01T00:00:00Z");

    @RegisterExtension
    static final MiniClusterExtension FLINK = ReliabilityRun.miniCluster();

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    @Test
    void aFastAndASlowBackfillOfTheSameReadingsSizeTheNextTableAlikeFromTheFleetsRate() throws Exception {
        assertThat(nextTableAfter("backfill_fast", RateLimiterStrategy.noOp()))
                .as("read as fast as the source goes")
                .isEqualTo("8/300");
        assertThat(nextTableAfter("backfill_slow", RateLimiterStrategy.perSecond(50)))
                .as("read at 50 a second")
                .isEqualTo("8/300");
    }

    /** The capacity 00:03's table opened at after the backlog was read at {@code rate}. */
    private static String nextTableAfter(String prefix, RateLimiterStrategy rate) throws Exception {
        PeriodTablesConfig config = ReliabilityRun.config(
                DYNAMODB.endpoint(),
                prefix,
                "tables.period",
                "PT1M",
                "rotation.lead",
                "PT20S",
                "window.allowed-lateness",
                "PT55S",
                "tables.capacity.current",
                "1000/300",
                "tables.capacity.current.min",
                "1/1",
                "tables.capacity.autoscaling",
                "false");
        TestInput input = new TestInput();
        for (int s = 0; s < 170; s++) {
            for (int i = 0; i < 5; i++) {
                input.reading("dev-" + i, T0.plusSeconds(s).plusMillis(100L * i), "\"v\":" + s);
            }
        }
        TestSource.Hooks hooks = new TestSource.Hooks();
        hooks.rate = rate;
        ReliabilityRun.of(config, input).execute(hooks, env -> {});
        ProvisionedThroughputDescription p = DYNAMODB.client()
                .describeTable(b -> b.tableName(config.naming().periodTableOf(T0.plusSeconds(180))))
                .table()
                .provisionedThroughput();
        return p.writeCapacityUnits() + "/" + p.readCapacityUnits();
    }
}
