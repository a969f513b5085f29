package io.periodtables.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.emulators.DynaliteExtension;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;

/**
 * Issue 58's demo on the production topology: the local run's shape (one-minute periods, event
 * time 10× the wall clock, 20 s lead, 10 s of allowed lateness, 2 s out of orderness) started in a
 * minute's last seconds, {@code --generator.start …:00:55Z}. The fleet writes 200 readings (one
 * write unit each) a wall-clock second, 20 a second of event time: the run sees 100 of its first
 * minute. The table three minutes on, 00:03, is sized from that minute; it opens at the fleet's
 * ceil(200 / 0.7) = 286 WCU, not at ceil(100 / 0.7) = 143 (the demo's 858 where its fleet needs
 * 2,858): the first minute was seen in part, 00:01 whole, and 00:01 had closed when 00:03 was
 * prebuilt.
 */
class PartialPeriodSizingITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .setConfiguration(LoopbackFlink.configuration("0"))
            .build());

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    @Test
    void aRunStartedInAMinutesLastSecondsOpensTheTableThreeMinutesOnAtTheFleetsRate() throws Exception {
        String prefix = "partial";
        Map<String, String> keys = new HashMap<>();
        keys.put("source", "generator");
        keys.put("dynamodb.endpoint", DYNAMODB.endpoint().toString());
        keys.put("tables.prefix", prefix);
        keys.put("tables.period", "PT1M");
        keys.put("rotation.lead", "PT20S");
        keys.put("window.allowed-lateness", "PT10S");
        keys.put("watermark.out-of-orderness", "PT2S");
        keys.put("tables.capacity.current", "1000/10");
        keys.put("tables.capacity.autoscaling", "false");
        keys.put("generator.start", "2025-03-01T00:00:55Z");
        keys.put("generator.devices", "20");
        keys.put("generator.speedup", "10");
        keys.put("generator.rate", "200");
        // 00:00:55 to 00:03:45 of event time: past 00:03's prebuild at 00:02:40
        keys.put("generator.count", String.valueOf(20 * 170));
        PeriodTablesConfig config = ConfigLoader.fromMap(keys, false);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        PeriodTablesTopology.build(env, config, Clock.systemUTC());
        env.execute("a run started at 00:00:55");

        assertThat(throughput(prefix + "_2025-03-01T0003"))
                .as("sized from 00:00, seen from 00:00:55 only, and 00:01, seen whole: the fleet's 200 a second")
                .isEqualTo("286/10");
    }

    private static String throughput(String table) {
        ProvisionedThroughputDescription p =
                DYNAMODB.client().describeTable(b -> b.tableName(table)).table().provisionedThroughput();
        return p.writeCapacityUnits() + "/" + p.readCapacityUnits();
    }
}
