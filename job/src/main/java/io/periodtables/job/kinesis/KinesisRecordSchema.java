package io.periodtables.job.kinesis;

import java.io.IOException;
import java.io.Serializable;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.util.Collector;
import software.amazon.awssdk.services.kinesis.model.Record;

/**
 * Turns one Kinesis record into the source's elements (none, one or more), with the record's
 * shard and sequence number at hand. The shape of the connector's
 * {@code KinesisDeserializationSchema}, but over the plain SDK's {@link Record}: the connector's
 * interface takes its shaded SDK type, which we do not import. Each element gets the record's
 * arrival time as its timestamp (as in the connector); a {@code WatermarkStrategy} may replace it.
 *
 * @param <T> the elements of the source
 */
public interface KinesisRecordSchema<T> extends Serializable, ResultTypeQueryable<T> {

    /** Called once per source reader before the first record. */
    default void open(DeserializationSchema.InitializationContext context) throws Exception {}

    /**
     * @param record the record as GetRecords returned it
     * @param streamArn the stream it was read from
     * @param shardId its shard
     * @param out receives the elements; a record may yield none
     */
    void deserialize(Record record, String streamArn, String shardId, Collector<T> out) throws IOException;
}
