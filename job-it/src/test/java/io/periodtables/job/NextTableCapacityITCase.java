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
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputDescription;

/**
 * A table follows the load: the production topology on the synthetic fleet at a steady rate,
 * minute tables on dynalite. The fleet writes {@code perSecond} readings (one write unit each:
 * about 180 bytes) in every second of event time, 20 times faster than the wall clock, as a replay
 * does: the sink writes about {@code 20 * perSecond} a wall-clock second. A table is sized from
 * the newest minute that had closed when the minute before it began (three back with 55 s of
 * allowed lateness): 00:03 from 00:00, at {@code ceil(peak / 0.7)} WCU within {@code
 * tables.capacity.current.min}..{@code .max}, the peak being the synthetic fleet's live rate: per
 * {@code generator.speedup} (20) seconds of event time; 00:00 to 00:02 have no such minute in the
 * run and open at the configured {@code current} tier.
 */
class NextTableCapacityITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .setConfiguration(LoopbackFlink.configuration("0"))
            .build());

    @RegisterExtension
    static final DynaliteExtension DYNAMODB = new DynaliteExtension();

    @ParameterizedTest(name = "{0} writes per second of event time -> {1} WCU")
    @CsvSource({
        // per second of event time: ceil(5 / 0.7) = 8; per 20 of them, the fleet's 100 a wall-clock
        // second: ceil(100 / 0.7) = 143, above tables.capacity.current.max (25)
        "5, 25",
    })
    void theNextTablesWriteCapacityFollowsTheObservedPeakWithinTheBounds(int perSecond, long expectedWcu)
            throws Exception {
        String prefix = "sized" + perSecond;
        PeriodTablesConfig config = config(prefix, perSecond);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        PeriodTablesTopology.build(env, config, Clock.systemUTC());
        env.execute("next table capacity at " + perSecond + "/s");

        assertThat(throughput(prefix + "_2025-03-01T0001"))
                .as("nothing of the run had closed when 00:00 began: the current tier")
                .isEqualTo("1000/10");
        assertThat(throughput(prefix + "_2025-03-01T0002"))
                .as("00:00 was still in its grace when 00:01 began: the current tier")
                .isEqualTo("1000/10");
        assertThat(throughput(prefix + "_2025-03-01T0003"))
                .as("prebuilt, sized from 00:00 (closed when 00:02 began) for its wall-clock rate")
                .isEqualTo(expectedWcu + "/10");
    }

    private static String throughput(String table) {
        ProvisionedThroughputDescription p =
                DYNAMODB.client().describeTable(b -> b.tableName(table)).table().provisionedThroughput();
        return p.writeCapacityUnits() + "/" + p.readCapacityUnits();
    }

    /** 170 s of event time from 00:00 at {@code perSecond} readings per second, 20 times faster than real time. */
    private static PeriodTablesConfig config(String prefix, int perSecond) {
        Map<String, String> keys = new HashMap<>();
        keys.put("source", "generator");
        keys.put("dynamodb.endpoint", DYNAMODB.endpoint().toString());
        keys.put("tables.prefix", prefix);
        keys.put("tables.period", "PT1M");
        // the next table is prebuilt 20 s of event time before its start, from 40 s of its predecessor's load
        keys.put("rotation.lead", "PT20S");
        // a minute closes 55 s after its end: 00:01 and 00:02 are still open when the run ends
        keys.put("window.allowed-lateness", "PT55S");
        // far above the 100 or 400 writes a wall-clock second of the runs: no write waits for throttling
        keys.put("tables.capacity.current", "1000/10");
        keys.put("tables.capacity.current.min", "4/1");
        keys.put("tables.capacity.current.max", "25/300");
        keys.put("generator.start", "2025-03-01T00:00:00Z");
        keys.put("generator.devices", "10");
        keys.put("generator.speedup", "20");
        keys.put("generator.rate", String.valueOf(perSecond * 20));
        keys.put("generator.count", String.valueOf(perSecond * 170));
        return ConfigLoader.fromMap(keys, false);
    }
}
