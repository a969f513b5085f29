package io.periodtables.rotation;

import io.periodtables.conf.Capacity;
import io.periodtables.conf.Period;
import io.periodtables.conf.PeriodCalendar;
import io.periodtables.conf.PeriodTablesConfig;
import io.periodtables.conf.TableNaming;
import io.periodtables.emulators.DynamoDbLocal;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rotation operator on a MiniCluster against DynamoDB Local, with per-minute tables, a 20 s
 * lead and 5 s allowed lateness. Event time starts in 2021, far behind the wall clock: a
 * backlog replay, so nothing here can come from the wall clock.
 */
class RotationOperatorITCase {
    private static final Instant T0 = Instant.parse("2021-03-01T10:00:00Z");
    private static final Queue<String> GATE = new ConcurrentLinkedQueue<>();
    private static final Set<String> READY = ConcurrentHashMap.newKeySet();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster();

    private static DynamoDbLocal local;

    @BeforeAll
    static void useDynamoDbLocal() {
        local = TestSetup.dynamoDb();
    }

    @BeforeEach
    void clearLogs() {
        CallLog.reset();
        GATE.clear();
        READY.clear();
    }

    @Test
    void eachNextTableIsReadyBeforeItsPeriodBeginsAndClosedTablesEndAtTheirTier() throws Exception {
        PeriodTablesConfig config = config();
        PeriodCalendar calendar = config.calendar();
        Instant wallStart = Instant.now();
        // One reading every 5 s of event time from 10:00:00 to 10:04:40: five periods, and the
        // watermark ends inside the lead of the sixth. Before the first reading of a period,
        // the source waits (bounded) until the rotation reported that period's table ready, as
        // the lead would let it in real time; the watermark cannot pass the period start meanwhile.
        List<RotationEvent> events = run(config, new Readings(timestamps(0, 57, 5), config.naming()));

        List<String> tables = new ArrayList<>();
        for (int minute = 0; minute <= 5; minute++) {
            tables.add(config.naming().periodTable(calendar.periodOf(T0.plusSeconds(60L * minute))));
        }
        for (String next : tables.subList(1, 6)) {
            RotationEvent ready = readyEvent(events, next);
            assertThat(ready.detail()).isEqualTo("created");
            assertThat(ready.leadMillis()).as("lead of %s", next).isPositive();
        }
        assertThat(GATE).as("tables the first reading of each period found").containsExactly(
                tables.get(1) + " found", tables.get(2) + " found", tables.get(3) + " found", tables.get(4) + " found");
        // Final watermark 10:04:40: 10:00-10:02 are older, 10:03 previous, 10:04 and 10:05 current.
        assertThat(capacities(tables)).containsExactly(Capacity.provisioned(1, 1), Capacity.provisioned(1, 1),
                Capacity.provisioned(1, 1), Capacity.provisioned(1, 100), Capacity.provisioned(1000, 300),
                Capacity.provisioned(1000, 300));
        assertThat(tables).allSatisfy(t -> assertThat(ttlStatus(t)).isEqualTo(TimeToLiveStatus.ENABLED));
        assertThat(CallLog.tablesOf("UpdateTable")).containsExactlyInAnyOrder(tables.get(0), tables.get(0),
                tables.get(1), tables.get(1), tables.get(2), tables.get(2), tables.get(3));
        // First start: the wall clock's table is there too, in case the source stalls.
        String wallTable = config.naming().periodTable(calendar.periodOf(wallStart));
        String wallTableLater = config.naming().periodTable(calendar.periodOf(wallStart.plusSeconds(2)));
        assertThat(TestSetup.tableNames(local, config.naming().prefix())).containsAnyOf(wallTable, wallTableLater);
    }

    @Test
    void aBacklogRacingForwardRollsEveryTableToItsTier() throws Exception {
        PeriodTablesConfig config = config();
        PeriodCalendar calendar = config.calendar();
        // No waiting: 10:00:00-10:00:50, then jumps to 10:03:10, 10:03:50, 10:04:50, 10:09:30, 10:09:45.
        List<Long> times = new ArrayList<>(timestamps(0, 6, 10));
        for (long second : new long[] {190, 230, 290, 570, 585}) {
            times.add(T0.plusSeconds(second).toEpochMilli());
        }
        List<RotationEvent> events = run(config, new Readings(times, null));

        List<String> older = new ArrayList<>();
        for (int minute : new int[] {0, 1, 3, 4, 5}) {
            older.add(config.naming().periodTable(calendar.periodOf(T0.plusSeconds(60L * minute))));
        }
        List<String> current = List.of(
                config.naming().periodTable(calendar.periodOf(T0.plusSeconds(9 * 60))),
                config.naming().periodTable(calendar.periodOf(T0.plusSeconds(10 * 60))));
        assertThat(capacities(older)).containsOnly(Capacity.provisioned(1, 1));
        assertThat(capacities(current)).containsOnly(Capacity.provisioned(1000, 300));
        assertThat(events).noneMatch(e -> e.kind() == RotationEvent.Kind.FAILED);
        String skipped = config.naming().periodTable(calendar.periodOf(T0.plusSeconds(7 * 60)));
        assertThat(TestSetup.tableNames(local, config.naming().prefix())).doesNotContain(skipped);
    }

    @Test
    void retentionAtTheRolloverDeletesOnlyExpiredTables() throws Exception {
        PeriodTablesConfig config = config().with(io.periodtables.conf.ConfigKeys.TABLES_RETENTION, "PT3M");
        PeriodCalendar calendar = config.calendar();
        Period expired = calendar.periodOf(T0.minusSeconds(600));
        Period kept = calendar.periodOf(T0.minusSeconds(120));
        try (TableManager manager = TableManager.create(config, TestSetup.clients(config, LocalTagging.class),
                TestSetup.fastSettings())) {
            manager.ensure(expired).join();
            manager.ensure(kept).join();
        }

        List<RotationEvent> events = run(config, new Readings(timestamps(0, 8, 10), null));

        assertThat(events).filteredOn(e -> e.kind() == RotationEvent.Kind.TABLE_DELETED)
                .extracting(RotationEvent::table)
                .containsExactly(config.naming().periodTable(expired));
        assertThat(TestSetup.tableNames(local, config.naming().prefix()))
                .doesNotContain(config.naming().periodTable(expired))
                .contains(config.naming().periodTable(kept), config.naming().periodTable(calendar.periodOf(T0)));
    }

    @Test
    void aRestoreFromASavepointRepeatsNoCapacityChange(@TempDir Path savepoints) throws Exception {
        PeriodTablesConfig config = config();
        PeriodCalendar calendar = config.calendar();
        List<String> tables = new ArrayList<>();
        for (int minute = 0; minute <= 4; minute++) {
            tables.add(config.naming().periodTable(calendar.periodOf(T0.plusSeconds(60L * minute))));
        }
        // Run 1: event time to 10:03:35 and then stays there; stop with a savepoint once 10:00
        // and 10:01 are older and 10:02 is previous.
        StreamExecutionEnvironment first = environment();
        Rotation.builder(config).clients(TestSetup.clients(config, CallLog.class))
                .tableManagerSettings(TestSetup.fastSettings()).guardInterval(Duration.ofMillis(500))
                .attach(source(first, new Readings(timestamps(0, 44, 5), null), Long.MAX_VALUE, "readings-1"));
        JobClient job = first.executeAsync("rotation before the savepoint");
        boolean settled = TestSetup.eventually(Duration.ofSeconds(60), () -> capacities(tables.subList(0, 4)).equals(List.of(
                Capacity.provisioned(1, 1), Capacity.provisioned(1, 1), Capacity.provisioned(1, 100),
                Capacity.provisioned(1000, 300))));
        assertThat(settled).as("tiers before the savepoint").isTrue();
        String savepoint = job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);
        CallLog.reset();

        // Run 2 from the savepoint: event time replays from 10:00:00 and goes on to 10:04:10.
        StreamExecutionEnvironment second = environment();
        Rotation.builder(config).clients(TestSetup.clients(config, CallLog.class))
                .tableManagerSettings(TestSetup.fastSettings()).guardInterval(Duration.ofMillis(500))
                .attach(source(second, new Readings(timestamps(0, 51, 5), null), 51, "readings-2"))
                .sinkTo(new DiscardingSink<>());
        StreamGraph graph = second.getStreamGraph();
        graph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint, true));
        second.execute(graph);

        // Only the changes that became due after the savepoint: 10:02 to older, 10:03 to previous.
        assertThat(CallLog.tablesOf("UpdateTable")).containsExactlyInAnyOrder(tables.get(2), tables.get(3));
        assertThat(CallLog.tablesOf("DescribeTable")).contains(tables.get(2), tables.get(3));
        assertThat(capacities(tables)).containsExactly(Capacity.provisioned(1, 1), Capacity.provisioned(1, 1),
                Capacity.provisioned(1, 1), Capacity.provisioned(1, 100), Capacity.provisioned(1000, 300));
    }

    private static PeriodTablesConfig config() {
        return TestSetup.config(local.endpoint(), "tables.prefix", TestSetup.uniquePrefix("rot"), "tables.period", "PT1M",
                "rotation.lead", "PT20S", "window.allowed-lateness", "PT5S", "tables.ttl", "P7D");
    }

    /** Runs a bounded job over these event times and returns the rotation's events. */
    private static List<RotationEvent> run(PeriodTablesConfig config, Readings generator) throws Exception {
        StreamExecutionEnvironment env = environment();
        DataStream<Long> readings = source(env, generator, generator.times.size(), "readings");
        List<RotationEvent> events = new ArrayList<>();
        try (CloseableIterator<RotationEvent> it = Rotation.builder(config)
                .clients(TestSetup.clients(config, CallLog.class, LocalTagging.class))
                .tableManagerSettings(TestSetup.fastSettings())
                .guardInterval(Duration.ofMillis(500))
                .attach(readings)
                .map(RotationOperatorITCase::noteReady)
                .executeAndCollect()) {
            it.forEachRemaining(events::add);
        }
        return events;
    }

    private static RotationEvent noteReady(RotationEvent event) {
        if (event.kind() == RotationEvent.Kind.TABLE_READY) {
            READY.add(event.table());
        }
        return event;
    }

    private static StreamExecutionEnvironment environment() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        return env;
    }

    private static DataStream<Long> source(StreamExecutionEnvironment env, Readings readings, long count, String uid) {
        DataGeneratorSource<Long> source = new DataGeneratorSource<>(readings, count, RateLimiterStrategy.perSecond(200), Types.LONG);
        return env.fromSource(source, WatermarkStrategy.<Long>forGenerator(c -> new EveryReading())
                        .withTimestampAssigner((reading, previous) -> reading), uid)
                .uid(uid);
    }

    private static List<Long> timestamps(int from, int to, int stepSeconds) {
        List<Long> times = new ArrayList<>();
        for (int i = from; i < to; i++) {
            times.add(T0.plusSeconds((long) i * stepSeconds).toEpochMilli());
        }
        return times;
    }

    private static RotationEvent readyEvent(List<RotationEvent> events, String table) {
        return events.stream()
                .filter(e -> e.kind() == RotationEvent.Kind.TABLE_READY && e.table().equals(table))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no TABLE_READY for " + table + " in " + events));
    }

    private static List<Capacity> capacities(List<String> tables) {
        return tables.stream().map(t -> {
            try {
                return TableInfo.capacityOf(TestSetup.describe(local, t));
            } catch (ResourceNotFoundException e) {
                return null;
            }
        }).toList();
    }

    private static TimeToLiveStatus ttlStatus(String table) {
        try (DynamoDbClient client = local.syncClient()) {
            return client.describeTimeToLive(b -> b.tableName(table)).timeToLiveDescription().timeToLiveStatus();
        }
    }

    private static MiniClusterExtension miniCluster() {
        Configuration flink = new Configuration();
        flink.set(JobManagerOptions.ADDRESS, "127.0.0.1");
        flink.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
        flink.set(TaskManagerOptions.HOST, "127.0.0.1");
        flink.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
        flink.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        flink.set(RestOptions.ADDRESS, "127.0.0.1");
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(2)
                .setConfiguration(flink)
                .build());
    }

    /** Punctuated watermarks: every reading moves the watermark to its own time. */
    private static final class EveryReading implements WatermarkGenerator<Long> {
        @Override
        public void onEvent(Long reading, long timestamp, WatermarkOutput output) {
            output.emitWatermark(new Watermark(timestamp));
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    /**
     * Synthetic readings whose value is their event time, taken from a list; past its end the
     * last time repeats (so an unbounded source then holds the watermark). With a gate, the
     * first reading of a new period waits (at most 20 s) until the rotation has reported that
     * period's table ready, as the lead would let it in real time, and records whether it was.
     */
    private static final class Readings implements GeneratorFunction<Long, Long> {
        private static final long serialVersionUID = 1L;

        private final ArrayList<Long> times;
        private final TableNaming gate;
        private long previousPeriodStart = Long.MIN_VALUE;

        Readings(List<Long> times, TableNaming gate) {
            this.times = new ArrayList<>(times);
            this.gate = gate;
        }

        @Override
        public Long map(Long index) throws Exception {
            long time = times.get((int) Math.min(index, times.size() - 1));
            if (gate != null) {
                waitForTableOf(time);
            }
            return time;
        }

        private void waitForTableOf(long time) throws InterruptedException {
            Period period = gate.calendar().periodOf(time);
            if (previousPeriodStart != Long.MIN_VALUE && period.startMillis() != previousPeriodStart) {
                String table = gate.periodTable(period);
                boolean found = TestSetup.eventually(Duration.ofSeconds(20), () -> READY.contains(table));
                GATE.add(table + (found ? " found" : " missing"));
            }
            previousPeriodStart = period.startMillis();
        }
    }
}
