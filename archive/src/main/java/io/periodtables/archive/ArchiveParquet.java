package io.periodtables.archive;

import java.util.Map;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.formats.parquet.ParquetWriterFactory;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * The archive's Parquet layout: one row per item with {@code pk}, {@code sk}, {@code ttl}
 * (optional) and {@code attributes} (the item's other attributes as a JSON object), GZIP pages.
 * The partition is the file's folder, not a column (Hive style).
 */
final class ArchiveParquet {

    static final MessageType SCHEMA = MessageTypeParser.parseMessageType("message archived_item {\n"
            + "  required binary pk (STRING);\n"
            + "  required binary sk (STRING);\n"
            + "  optional int64 ttl;\n"
            + "  required binary attributes (STRING);\n"
            + "}");

    /** What a data file's name ends with; in-progress files end otherwise and start with a dot. */
    static final String SUFFIX = ".parquet";

    private ArchiveParquet() {}

    /** The bulk writer factory of {@code FileSink}: one Parquet file per part file. */
    static BulkWriter.Factory<ArchiveRow> writerFactory() {
        return new ParquetWriterFactory<>(out ->
                new Builder(out).withCompressionCodec(CompressionCodecName.GZIP).build());
    }

    private static final class Builder extends ParquetWriter.Builder<ArchiveRow, Builder> {
        Builder(OutputFile out) {
            super(out);
            withConf(new PlainParquetConfiguration());
            withCodecFactory(GzipCodecs.INSTANCE);
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<ArchiveRow> getWriteSupport(Configuration conf) {
            return new RowWriteSupport();
        }

        @Override
        protected WriteSupport<ArchiveRow> getWriteSupport(ParquetConfiguration conf) {
            return new RowWriteSupport();
        }
    }

    /** Writes the four columns of a row. */
    private static final class RowWriteSupport extends WriteSupport<ArchiveRow> {
        private RecordConsumer consumer;

        @Override
        public WriteContext init(Configuration configuration) {
            return new WriteContext(SCHEMA, Map.of());
        }

        @Override
        public WriteContext init(ParquetConfiguration configuration) {
            return new WriteContext(SCHEMA, Map.of());
        }

        @Override
        public void prepareForWrite(RecordConsumer recordConsumer) {
            this.consumer = recordConsumer;
        }

        @Override
        public void write(ArchiveRow row) {
            consumer.startMessage();
            string(0, "pk", row.pk());
            string(1, "sk", row.sk());
            if (row.ttl() != null) {
                consumer.startField("ttl", 2);
                consumer.addLong(row.ttl());
                consumer.endField("ttl", 2);
            }
            string(3, "attributes", row.attributes());
            consumer.endMessage();
        }

        private void string(int index, String name, String value) {
            consumer.startField(name, index);
            consumer.addBinary(Binary.fromString(value));
            consumer.endField(name, index);
        }
    }
}
