package io.periodtables.job.time;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.config.ConfigLoader;
import io.periodtables.core.config.PeriodTablesConfig;
import io.periodtables.model.Reading;
import io.periodtables.model.SinkRecord;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.streaming.api.operators.source.TimestampsAndWatermarks;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.io.PushingAsyncDataInput;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.TestProcessingTimeService;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.util.clock.ManualClock;
import org.junit.jupiter.api.Test;

/**
 * A reader's watermark through a split's end, on Flink's own per-split watermark logic (the
 * {@code TimestampsAndWatermarks} a source operator runs) in manual time: a finished split holds
 * the reader's watermark until the reader is given its next split (a Kinesis parent's children) or
 * {@code watermark.idleness} passes, whatever the reader's other splits read meanwhile.
 */
class SplitEventTimeTest {
    private static final Instant DAY = Instant.parse("2025-06-02T00:00:00Z");
    private static final Duration IDLENESS = Duration.ofMinutes(1);

    private final PeriodTablesConfig config =
            ConfigLoader.fromMap(Map.of("tables.period", "P1D", "watermark.idleness", IDLENESS.toString()), false);
    private final ManualClock clock = new ManualClock(DAY.toEpochMilli() * 1_000_000);
    private final TimestampsAndWatermarks<SinkRecord> eventTime =
            TimestampsAndWatermarks.createProgressiveEventTimeLogic(
                    ReadingWatermarks.strategy(config, (ReadingWatermarks.WallClock) null),
                    new UnregisteredMetricsGroup(),
                    new TestProcessingTimeService(),
                    200,
                    clock,
                    clock,
                    UnregisteredMetricGroups.createUnregisteredTaskMetricGroup().getIOMetricGroup());
    private final Emitted emitted = new Emitted();
    private final ReaderOutput<SinkRecord> output = eventTime.createMainOutput(emitted, new Unheard());
    private final Scripted script = new Scripted();
    private SourceReader<SinkRecord, Split> reader;

    /**
     * The laggard parent finishes at 10:30 while its sibling is at 13:00; before the children are
     * assigned (a coordinator round trip later), the sibling reads 13:05. The reader's watermark
     * stays at the parent's end, so the children's readings from 10:31 are not late.
     */
    @Test
    void aFinishedSplitHoldsTheWatermarkUntilItsChildrenAreAssigned() throws Exception {
        reader = new SplitEventTime<>(script, config, false).createReader(null);
        reader.addSplits(List.of(new Split("parent"), new Split("sibling")));
        poll(out -> {
            out.createOutputForSplit("parent").collect(reading(at("10:30")), millis(at("10:30")));
            out.createOutputForSplit("sibling").collect(reading(at("13:00")), millis(at("13:00")));
            out.releaseOutputForSplit("parent"); // read to its end
        });
        poll(out -> out.createOutputForSplit("sibling").collect(reading(at("13:05")), millis(at("13:05"))));
        eventTime.emitImmediateWatermark(clock.absoluteTimeMillis());

        assertThat(emitted.last()).as("the reader's watermark").isEqualTo(watermarkAfter(at("10:30")));

        reader.addSplits(List.of(new Split("child")));
        poll(out -> out.createOutputForSplit("child").collect(reading(at("10:31")), millis(at("10:31"))));
        assertThat(emitted.last()).as("the child's first reading is on time").isLessThan(millis(at("10:31")));
        poll(out -> out.createOutputForSplit("child").collect(reading(at("13:10")), millis(at("13:10"))));
        assertThat(emitted.last())
                .as("the child took the parent's place: the sibling leads again")
                .isEqualTo(watermarkAfter(at("13:05")));
    }

    /** No child comes to this reader (a merge's other parent's reader): the finished split lets go after idleness. */
    @Test
    void aFinishedSplitWithoutChildrenHereLetsGoOfTheWatermarkAfterIdleness() throws Exception {
        reader = new SplitEventTime<>(script, config, false).createReader(null);
        reader.addSplits(List.of(new Split("parent"), new Split("sibling")));
        poll(out -> {
            out.createOutputForSplit("parent").collect(reading(at("10:30")), millis(at("10:30")));
            out.createOutputForSplit("sibling").collect(reading(at("13:00")), millis(at("13:00")));
            out.releaseOutputForSplit("parent");
        });
        // Flink's idleness: a periodic emit sees no new reading and starts the split's idle time, ...
        eventTime.emitImmediateWatermark(clock.absoluteTimeMillis());
        eventTime.emitImmediateWatermark(clock.absoluteTimeMillis());
        assertThat(emitted.last()).isEqualTo(watermarkAfter(at("10:30")));

        clock.advanceTime(IDLENESS.plusSeconds(1)); // ... which a later one finds past watermark.idleness
        poll(out -> out.createOutputForSplit("sibling").collect(reading(at("13:05")), millis(at("13:05"))));
        eventTime.emitImmediateWatermark(clock.absoluteTimeMillis());

        assertThat(emitted.last()).isEqualTo(watermarkAfter(at("13:05")));
    }

    /**
     * The enumerator gave the parent's child to another reader and asked this one to hold: the
     * parent's end holds the reader's watermark through a new split (here a child of another
     * parent) and the sibling's readings, and only the release lets it go.
     */
    @Test
    void aFinishedSplitKeptForAHandOverHoldsThroughNewSplitsUntilReleased() throws Exception {
        Coordinator coordinator = new Coordinator();
        reader = new SplitEventTime<>(script, config, false).createReader(coordinator.context());
        reader.addSplits(List.of(new Split("parent"), new Split("sibling")));
        poll(out -> {
            out.createOutputForSplit("parent").collect(reading(at("10:30")), millis(at("10:30")));
            out.createOutputForSplit("sibling").collect(reading(at("13:00")), millis(at("13:00")));
            out.releaseOutputForSplit("parent");
        });

        reader.handleSourceEvents(new WatermarkHandOver.Hold(List.of("parent", "unknown")));
        assertThat(coordinator.events)
                .containsExactly(
                        new WatermarkHandOver.Held(Map.of("parent", watermarkAfter(at("10:30"))), List.of("unknown")));

        reader.addSplits(List.of(new Split("other-child")));
        poll(out -> {
            out.createOutputForSplit("other-child").collect(reading(at("13:10")), millis(at("13:10")));
            out.createOutputForSplit("sibling").collect(reading(at("13:05")), millis(at("13:05")));
        });
        eventTime.emitImmediateWatermark(clock.absoluteTimeMillis());
        assertThat(emitted.last()).as("held at the parent's end").isEqualTo(watermarkAfter(at("10:30")));

        reader.handleSourceEvents(new WatermarkHandOver.Release(List.of("parent")));
        eventTime.emitImmediateWatermark(clock.absoluteTimeMillis());
        assertThat(emitted.last()).as("let go").isEqualTo(watermarkAfter(at("13:05")));
    }

    /**
     * A reader that never had a split takes a child over: it emits the parent's end at once, which
     * makes it active and holds the job's watermark there, and says so to the enumerator once a
     * checkpoint taken after that watermark has completed (its barrier followed the watermark).
     */
    @Test
    void aReaderTakingOverEmitsTheParentsEndAndSaysSoAfterTheNextCheckpoint() throws Exception {
        Coordinator coordinator = new Coordinator();
        reader = new SplitEventTime<>(script, config, false).createReader(coordinator.context());
        poll(out -> {});
        eventTime.emitImmediateWatermark(clock.absoluteTimeMillis());
        clock.advanceTime(IDLENESS.plusSeconds(1));
        eventTime.emitImmediateWatermark(clock.absoluteTimeMillis());
        assertThat(emitted.statuses).as("without a split, idle").containsExactly(WatermarkStatus.IDLE);
        reader.addSplits(List.of(new Split("child")));
        long parentsEnd = watermarkAfter(at("10:30"));

        reader.handleSourceEvents(new WatermarkHandOver.TakeOver("child", parentsEnd));
        assertThat(emitted.last()).isEqualTo(parentsEnd);
        assertThat(emitted.statuses).containsExactly(WatermarkStatus.IDLE, WatermarkStatus.ACTIVE);
        poll(out -> out.createOutputForSplit("child").collect(reading(at("10:29")), millis(at("10:29"))));
        eventTime.emitImmediateWatermark(clock.absoluteTimeMillis());
        assertThat(emitted.last())
                .as("the child's readings before the parent's end move nothing")
                .isEqualTo(parentsEnd);

        reader.snapshotState(1);
        assertThat(coordinator.events).isEmpty();
        reader.notifyCheckpointComplete(1);
        assertThat(coordinator.events).containsExactly(new WatermarkHandOver.TookOver("child", parentsEnd));
        reader.notifyCheckpointComplete(2);
        assertThat(coordinator.events).hasSize(1);
    }

    private void poll(Consumer<ReaderOutput<SinkRecord>> step) throws Exception {
        script.steps.add(step);
        reader.pollNext(output);
    }

    private static Instant at(String time) {
        return Instant.parse("2025-06-01T" + time + ":00Z");
    }

    private static long millis(Instant at) {
        return at.toEpochMilli();
    }

    /** The per-split watermark after a reading at {@code at}: 5 s of out-of-orderness, whole seconds, less 1 ms. */
    private static long watermarkAfter(Instant at) {
        return at.minusSeconds(5).toEpochMilli() - 1;
    }

    private static SinkRecord reading(Instant at) {
        return SinkRecord.period(new Reading("dev", at.toEpochMilli(), null, "{\"v\":1}"));
    }

    /** The events the reader sent its enumerator, through a context that has nothing else. */
    private static final class Coordinator {
        final List<SourceEvent> events = new ArrayList<>();

        SourceReaderContext context() {
            return (SourceReaderContext) Proxy.newProxyInstance(
                    SourceReaderContext.class.getClassLoader(),
                    new Class<?>[] {SourceReaderContext.class},
                    (proxy, method, args) -> {
                        if (!method.getName().equals("sendSourceEventToCoordinator")) {
                            throw new UnsupportedOperationException(method.getName());
                        }
                        events.add((SourceEvent) args[0]);
                        return null;
                    });
        }
    }

    /** Watermarks and statuses the reader emitted, in order. */
    private static final class Emitted implements PushingAsyncDataInput.DataOutput<SinkRecord> {
        final List<Long> watermarks = new ArrayList<>();
        final List<WatermarkStatus> statuses = new ArrayList<>();

        long last() {
            return watermarks.isEmpty() ? Long.MIN_VALUE : watermarks.get(watermarks.size() - 1);
        }

        @Override
        public void emitRecord(StreamRecord<SinkRecord> record) {}

        @Override
        public void emitWatermark(Watermark watermark) {
            watermarks.add(watermark.getTimestamp());
        }

        @Override
        public void emitWatermarkStatus(WatermarkStatus status) {
            statuses.add(status);
        }

        @Override
        public void emitLatencyMarker(LatencyMarker marker) {}

        @Override
        public void emitRecordAttributes(RecordAttributes attributes) {}
    }

    private record Split(String splitId) implements SourceSplit {}

    /** The source operator's listener (watermark alignment, metrics): not what is tested here. */
    private static final class Unheard implements TimestampsAndWatermarks.WatermarkUpdateListener {
        @Override
        public void updateIdle(boolean idle) {}

        @Override
        public void updateCurrentEffectiveWatermark(long watermark) {}

        @Override
        public void updateCurrentSplitWatermark(String splitId, long watermark) {}

        @Override
        public void splitFinished(String splitId) {}
    }

    /** A source whose reader runs one scripted step per poll, as Flink's readers call their output. */
    private static final class Scripted implements Source<SinkRecord, Split, Void> {
        final Deque<Consumer<ReaderOutput<SinkRecord>>> steps = new ArrayDeque<>();

        @Override
        public Boundedness getBoundedness() {
            return Boundedness.CONTINUOUS_UNBOUNDED;
        }

        @Override
        public SourceReader<SinkRecord, Split> createReader(SourceReaderContext context) {
            return new SourceReader<>() {
                @Override
                public void start() {}

                @Override
                public InputStatus pollNext(ReaderOutput<SinkRecord> out) {
                    Consumer<ReaderOutput<SinkRecord>> step = steps.poll();
                    if (step != null) {
                        step.accept(out);
                    }
                    return InputStatus.NOTHING_AVAILABLE;
                }

                @Override
                public List<Split> snapshotState(long checkpointId) {
                    return List.of();
                }

                @Override
                public CompletableFuture<Void> isAvailable() {
                    return new CompletableFuture<>();
                }

                @Override
                public void addSplits(List<Split> splits) {}

                @Override
                public void notifyNoMoreSplits() {}

                @Override
                public void close() {}
            };
        }

        @Override
        public SplitEnumerator<Split, Void> createEnumerator(SplitEnumeratorContext<Split> context) {
            throw new UnsupportedOperationException();
        }

        @Override
        public SplitEnumerator<Split, Void> restoreEnumerator(SplitEnumeratorContext<Split> context, Void state) {
            throw new UnsupportedOperationException();
        }

        @Override
        public SimpleVersionedSerializer<Split> getSplitSerializer() {
            throw new UnsupportedOperationException();
        }

        @Override
        public SimpleVersionedSerializer<Void> getEnumeratorCheckpointSerializer() {
            throw new UnsupportedOperationException();
        }
    }
}
