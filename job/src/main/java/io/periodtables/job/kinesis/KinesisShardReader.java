package io.periodtables.job.kinesis;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.kinesis.source.split.KinesisShardSplit;
import org.apache.flink.connector.kinesis.source.split.KinesisShardSplitState;
import org.apache.flink.connector.kinesis.source.split.StartingPosition;
import org.apache.flink.util.Collector;
import software.amazon.awssdk.services.kinesis.model.Record;

/**
 * The source reader of {@link PacedKinesisSource}: Flink's single-fetcher reader over a
 * {@link PacedShardSplitReader}, keeping per shard the connector's split state (the position after
 * the last record emitted), which is what checkpoints store. Does what connector 4.3.0's
 * {@code KinesisStreamsSourceReader} and {@code KinesisStreamsRecordEmitter} do, over the plain SDK,
 * and tells {@link ParentsFirstEnumerator} which shards it reads and which it finished.
 */
public final class KinesisShardReader<T>
        extends SingleThreadMultiplexSourceReaderBase<Record, T, KinesisShardSplit, KinesisShardSplitState> {

    KinesisShardReader(
            Supplier<SplitReader<Record, KinesisShardSplit>> splitReader,
            KinesisRecordSchema<T> schema,
            Configuration config,
            SourceReaderContext context) {
        super(splitReader, new Emitter<>(schema), config, context);
    }

    /** Tells the enumerator which shards this reader reads, restored ones included: their children wait. */
    @Override
    public void addSplits(List<KinesisShardSplit> splits) {
        super.addSplits(splits);
        context.sendSourceEventToCoordinator(new ShardEvents.Reading(
                splits.stream().map(KinesisShardSplit::splitId).toList()));
    }

    /** Closed shards read to their end: the enumerator assigns their children now. */
    @Override
    protected void onSplitFinished(Map<String, KinesisShardSplitState> finishedSplitIds) {
        context.sendSourceEventToCoordinator(new ShardEvents.Finished(List.copyOf(finishedSplitIds.keySet())));
    }

    @Override
    protected KinesisShardSplitState initializedState(KinesisShardSplit split) {
        return new KinesisShardSplitState(split);
    }

    @Override
    protected KinesisShardSplit toSplitType(String splitId, KinesisShardSplitState splitState) {
        return splitState.getKinesisShardSplit();
    }

    /** Deserializes a record, stamps its elements with its arrival time, then moves the position past it. */
    private static final class Emitter<T> implements RecordEmitter<Record, T, KinesisShardSplitState> {
        private final KinesisRecordSchema<T> schema;
        private final TimestampedOutput<T> out = new TimestampedOutput<>();

        Emitter(KinesisRecordSchema<T> schema) {
            this.schema = schema;
        }

        @Override
        public void emitRecord(Record record, SourceOutput<T> output, KinesisShardSplitState split) throws Exception {
            out.output = output;
            out.timestamp = record.approximateArrivalTimestamp().toEpochMilli();
            schema.deserialize(record, split.getStreamArn(), split.getShardId(), out);
            split.setNextStartingPosition(StartingPosition.continueFromSequenceNumber(record.sequenceNumber()));
        }
    }

    private static final class TimestampedOutput<T> implements Collector<T> {
        SourceOutput<T> output;
        long timestamp;

        @Override
        public void collect(T element) {
            output.collect(element, timestamp);
        }

        @Override
        public void close() {}
    }
}
