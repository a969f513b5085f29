package io.periodtables.job.kinesis;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kinesis.source.KinesisStreamsSource;
import org.apache.flink.connector.kinesis.source.enumerator.KinesisStreamsSourceEnumeratorState;
import org.apache.flink.connector.kinesis.source.split.KinesisShardSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.UserCodeClassLoader;
import org.apache.flink.util.function.SerializableSupplier;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * The Kinesis source of the job: connector 4.3.0's FLIP-27 {@link KinesisStreamsSource} for shard
 * discovery and assignment (its enumerator, with children after their parents:
 * {@link ParentsFirstEnumerator}), its splits and its serializers, so savepoints hold exactly what
 * the stock source holds; and our reader, {@link KinesisShardReader} over
 * {@link PacedShardSplitReader}, which reads shards with the plain SDK and pauses empty ones.
 */
public final class PacedKinesisSource<T>
        implements Source<T, KinesisShardSplit, KinesisStreamsSourceEnumeratorState>, ResultTypeQueryable<T> {
    private static final long serialVersionUID = 1L;

    /** Only its enumerator and serializers are used; it never creates a reader. */
    private final KinesisStreamsSource<?> stock;

    private final Configuration readerConfig;
    private final KinesisRecordSchema<T> schema;
    /** A new client for each split reader, made on the task manager. */
    private final SerializableSupplier<KinesisClient> kinesis;
    /** The enumerator's client, for the shards' parents. */
    private final SerializableSupplier<KinesisClient> lineage;

    PacedKinesisSource(
            KinesisStreamsSource<?> stock,
            Configuration readerConfig,
            KinesisRecordSchema<T> schema,
            SerializableSupplier<KinesisClient> kinesis,
            SerializableSupplier<KinesisClient> lineage) {
        this.stock = stock;
        this.readerConfig = readerConfig;
        this.schema = schema;
        this.kinesis = kinesis;
        this.lineage = lineage;
    }

    @Override
    public Boundedness getBoundedness() {
        return stock.getBoundedness();
    }

    @Override
    public SourceReader<T, KinesisShardSplit> createReader(SourceReaderContext context) throws Exception {
        schema.open(new DeserializationSchema.InitializationContext() {
            @Override
            public MetricGroup getMetricGroup() {
                return context.metricGroup().addGroup("deserializer");
            }

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                return context.getUserCodeClassLoader();
            }
        });
        ShardReadMetrics metrics = new ShardReadMetrics(context.metricGroup());
        return new KinesisShardReader<>(
                () -> new PacedShardSplitReader(kinesis.get(), metrics), schema, readerConfig, context);
    }

    @Override
    public SplitEnumerator<KinesisShardSplit, KinesisStreamsSourceEnumeratorState> createEnumerator(
            SplitEnumeratorContext<KinesisShardSplit> context) {
        return new ParentsFirstEnumerator(context, ShardLineage.of(lineage), gate -> {
            try {
                return stock.createEnumerator(gate);
            } catch (Exception e) {
                throw new IllegalStateException("cannot create the Kinesis source's enumerator", e);
            }
        });
    }

    @Override
    public SplitEnumerator<KinesisShardSplit, KinesisStreamsSourceEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<KinesisShardSplit> context, KinesisStreamsSourceEnumeratorState checkpoint) {
        return new ParentsFirstEnumerator(context, ShardLineage.of(lineage), gate -> {
            try {
                return stock.restoreEnumerator(gate, checkpoint);
            } catch (Exception e) {
                throw new IllegalStateException("cannot restore the Kinesis source's enumerator", e);
            }
        });
    }

    @Override
    public SimpleVersionedSerializer<KinesisShardSplit> getSplitSerializer() {
        return stock.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<KinesisStreamsSourceEnumeratorState> getEnumeratorCheckpointSerializer() {
        return stock.getEnumeratorCheckpointSerializer();
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return schema.getProducedType();
    }
}
