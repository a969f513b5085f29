package io.periodtables.job.time;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigKeys;
import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.LoopbackFlink;
import io.periodtables.core.config.UserMetrics;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.PeriodLength;
import io.periodtables.job.PeriodTablesTopology;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The period windows on a MiniCluster: every reading leaves exactly once, on time or late, and
 * the window function counts its fires and the readings they emit.
 */
class PeriodWindowsITCase {

    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .setConfiguration(METRICS.addToConfiguration(LoopbackFlink.configuration("0")))
            .build());

    /** A watermark after every reading, so lateness does not depend on the periodic emitter's timing. */
    private static final class EveryEvent implements WatermarkGenerator<Reading> {
        private long max = Long.MIN_VALUE;

        @Override
        public void onEvent(Reading reading, long timestamp, WatermarkOutput output) {
            max = Math.max(max, timestamp);
            output.emitWatermark(new Watermark(max));
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    private static final long T0 = Instant.parse("2026-11-22T13:00:00Z").toEpochMilli();

    @Test
    void readingsLeaveInCountedSmallBatchesAndLateOnesThroughTheSideOutput() throws Exception {
        List<Reading> input = new ArrayList<>();
        // Three hourly periods, 5 devices, one reading per device every 30 s.
        for (long t = T0; t < T0 + Duration.ofHours(3).toMillis(); t += 30_000) {
            for (int d = 0; d < 5; d++) {
                input.add(new Reading("dev-" + d, t + d, null, "{\"v\":" + t + "}"));
            }
            if (t == T0 + Duration.ofMinutes(150).toMillis()) {
                // Measured in the first hour, arriving 90 minutes later: past the 5-minute grace.
                input.add(new Reading("dev-late", T0 + 1000, null, "{\"late\":1}"));
                // Measured 2 minutes ago: within the grace, still goes to its period.
                input.add(new Reading("dev-grace", t - Duration.ofMinutes(2).toMillis(), null, "{\"grace\":1}"));
            }
        }

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        SingleOutputStreamOperator<SinkRecord> windowed = env.fromData(
                        TypeInformation.of(Reading.class), input.toArray(new Reading[0]))
                .setParallelism(1)
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Reading>forGenerator(ctx -> new EveryEvent())
                        .withTimestampAssigner((r, ts) -> r.eventMillis()))
                .setParallelism(1)
                .keyBy(Reading::deviceId)
                .window(new PeriodWindows(
                        new PeriodCalendar(PeriodLength.parse("PT1H"), ZoneOffset.UTC), new SmallBatchTrigger(7, 50)))
                .allowedLateness(Duration.ofMinutes(5))
                .sideOutputLateData(PeriodTablesTopology.LATE)
                .process(
                        new PeriodTablesTopology.ToPeriodTable(ConfigLoader.fromMap(
                                Map.of("tables.period", "PT1H", "window.allowed-lateness", "PT5M"), false)),
                        TypeInformation.of(SinkRecord.class));
        DataStream<SinkRecord> late = windowed.getSideOutput(PeriodTablesTopology.LATE)
                .process(
                        new RouteLate.FromWindows(ConfigKeys.LatePolicy.LATE_TABLE),
                        TypeInformation.of(SinkRecord.class));

        List<SinkRecord> out = new ArrayList<>();
        JobID job;
        try (CloseableIterator<SinkRecord> it = windowed.union(late).collectAsync()) {
            job = env.executeAsync().getJobID();
            it.forEachRemaining(out::add);
        }

        List<Reading> onTime = new ArrayList<>();
        List<SinkRecord> lateOut = new ArrayList<>();
        for (SinkRecord r : out) {
            if (r.kind() == SinkRecord.Kind.PERIOD) {
                onTime.add(r.reading());
            } else {
                lateOut.add(r);
            }
        }
        assertThat(lateOut).singleElement().satisfies(record -> {
            assertThat(record.reading().deviceId()).isEqualTo("dev-late");
            // The watermark that made it late: the reading just before it, 150 minutes in.
            assertThat(record.lateAtMillis())
                    .isEqualTo(T0 + Duration.ofMinutes(150).toMillis() + 4);
        });
        List<Reading> expectedOnTime = new ArrayList<>(input);
        expectedOnTime.removeIf(r -> r.deviceId().equals("dev-late"));
        assertThat(onTime).containsExactlyInAnyOrderElementsOf(expectedOnTime);

        // Each on-time reading left in exactly one fire; a fire emits at most 7 (the count), so a
        // device's period of n readings took at least ceil(n / 7) fires.
        Map<String, Long> perDevicePeriod = expectedOnTime.stream()
                .collect(Collectors.groupingBy(
                        r -> r.deviceId() + "@"
                                + (r.eventMillis() - T0) / Duration.ofHours(1).toMillis(),
                        Collectors.counting()));
        long leastFires =
                perDevicePeriod.values().stream().mapToLong(n -> (n + 6) / 7).sum();
        assertThat(counter(job, UserMetrics.WINDOW_FIRED_READINGS)).isEqualTo(expectedOnTime.size());
        assertThat(counter(job, UserMetrics.WINDOW_FIRES)).isBetween(leastFires, (long) expectedOnTime.size());
    }

    /** The sum over the window operator's subtasks of our counter {@code name}. */
    private static long counter(JobID job, String name) {
        return METRICS.getMetricsByGroup().entrySet().stream()
                .filter(g -> job.toString().equals(g.getKey().getAllVariables().get("<job_id>")))
                .filter(g -> g.getKey().getMetricIdentifier(name).endsWith("." + UserMetrics.GROUP + "." + name))
                .map(g -> g.getValue().get(name))
                .filter(metric -> metric instanceof Counter)
                .mapToLong(metric -> ((Counter) metric).getCount())
                .sum();
    }
}
