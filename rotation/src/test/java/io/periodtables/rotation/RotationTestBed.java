package io.periodtables.rotation;

import io.periodtables.core.capacity.Capacity;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.TableNaming;
import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.LoopbackFlink;
import io.periodtables.rotation.lifecycle.ManagedTable;
import io.periodtables.rotation.reconcile.RotationEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * The rotation operator's test bed: a loopback MiniCluster, per-minute tables with a 20 s lead
 * and 5 s allowed lateness on the shared dynalite, and a synthetic source of readings
 * whose event time starts in 2021, far behind the wall clock (a backlog replay: nothing the
 * tests check can come from the wall clock).
 */
public final class RotationTestBed {
    public static final Instant T0 = Instant.parse("2021-03-01T10:00:00Z");
    /** What the gate saw at the first reading of each period: "table found" or "table missing". */
    public static final Queue<String> GATE = new ConcurrentLinkedQueue<>();
    /** Tables the rotation reported ready in the running job. */
    public static final Set<String> READY = ConcurrentHashMap.newKeySet();

    private RotationTestBed() {}

    public static MiniClusterExtension miniCluster() {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(2)
                .setConfiguration(LoopbackFlink.configuration("0"))
                .build());
    }

    public static void reset() {
        CallLog.reset();
        GATE.clear();
        READY.clear();
    }

    /** Per-minute tables of a fresh prefix; more keys as pairs. */
    public static PeriodTablesConfig config(String... more) {
        List<String> all = new ArrayList<>(List.of(
                "tables.prefix",
                TestSetup.uniquePrefix("rot"),
                "tables.period",
                "PT1M",
                "rotation.lead",
                "PT20S",
                "window.allowed-lateness",
                "PT5S",
                "tables.ttl",
                "P7D"));
        all.addAll(List.of(more));
        return TestSetup.config(TestSetup.dynamoDb().endpoint(), all.toArray(String[]::new));
    }

    /** The table of the period that contains {@code T0 + seconds}. */
    public static String tableAt(PeriodTablesConfig config, long seconds) {
        return config.naming().periodTableOf(T0.plusSeconds(seconds));
    }

    /** The rotation as the tests attach it: fast settings, a 500 ms guard, calls logged. */
    public static Rotation.Builder rotation(PeriodTablesConfig config) {
        return Rotation.builder(config)
                .clients(TestSetup.clients(config, CallLog.class))
                .tableManagerSettings(TestSetup.fastSettings())
                .reconcileInterval(Duration.ofMillis(500));
    }

    /** Runs a bounded job over the readings and returns the rotation's events. */
    public static List<RotationEvent> run(PeriodTablesConfig config, Readings readings) throws Exception {
        StreamExecutionEnvironment env = environment();
        List<RotationEvent> events = new ArrayList<>();
        try (CloseableIterator<RotationEvent> it = rotation(config)
                .attach(source(env, readings, readings.times.size(), "readings"))
                .map(RotationTestBed::noteReady)
                .executeAndCollect()) {
            it.forEachRemaining(events::add);
        }
        return events;
    }

    public static StreamExecutionEnvironment environment() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        return env;
    }

    /** {@code count} readings (or unbounded: {@link Long#MAX_VALUE}), each its own watermark. */
    public static DataStream<Long> source(StreamExecutionEnvironment env, Readings readings, long count, String uid) {
        DataGeneratorSource<Long> source =
                new DataGeneratorSource<>(readings, count, RateLimiterStrategy.perSecond(200), Types.LONG);
        return env.fromSource(
                        source,
                        WatermarkStrategy.<Long>forGenerator(c -> new EveryReading())
                                .withTimestampAssigner((reading, previous) -> reading),
                        uid)
                .uid(uid);
    }

    /** Event times {@code T0 + i * step} for i in [from, to). */
    public static List<Long> timestamps(int from, int to, int stepSeconds) {
        List<Long> times = new ArrayList<>();
        for (int i = from; i < to; i++) {
            times.add(T0.plusSeconds((long) i * stepSeconds).toEpochMilli());
        }
        return times;
    }

    public static List<Capacity> capacities(List<String> tables) {
        Dynalite local = TestSetup.dynamoDb();
        return tables.stream()
                .map(t -> {
                    try {
                        return ManagedTable.capacityOf(TestSetup.describe(local, t));
                    } catch (ResourceNotFoundException e) {
                        return null;
                    }
                })
                .toList();
    }

    private static RotationEvent noteReady(RotationEvent event) {
        if (event.kind() == RotationEvent.Kind.TABLE_READY) {
            READY.add(event.table());
        }
        return event;
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
    public static final class Readings implements GeneratorFunction<Long, Long> {
        private static final long serialVersionUID = 1L;

        final ArrayList<Long> times;
        private final TableNaming gate;
        private long previousPeriodStart = Long.MIN_VALUE;

        public Readings(List<Long> times, TableNaming gate) {
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
