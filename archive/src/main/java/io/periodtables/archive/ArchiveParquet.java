package io.periodtables.archive;

import io.periodtables.core.item.ArchiveColumn;
import io.periodtables.core.item.ItemAttributes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
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
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The archive's Parquet layout (docs/archive.md), GZIP pages; the partition is the file's folder,
 * not a column (Hive style).
 *
 * <p>Format 2, written since the analyst schema: {@code device}, {@code event_time} (UTC
 * timestamp, milliseconds), {@code event_id}, one column per {@code archive.columns} entry,
 * {@code attributes} (the other attributes as a JSON object, including a configured field whose
 * value does not fit its column), {@code pk}, {@code sk}, {@code ttl}. The rows of a file are
 * sorted by device and event time, so the row groups' statistics let engines skip. Format 1 (read
 * only): {@code pk}, {@code sk}, {@code ttl}, {@code attributes}.
 */
final class ArchiveParquet {

    static final MessageType SCHEMA_V1 = MessageTypeParser.parseMessageType("message archived_item {\n"
            + "  required binary pk (STRING);\n"
            + "  required binary sk (STRING);\n"
            + "  optional int64 ttl;\n"
            + "  required binary attributes (STRING);\n"
            + "}");

    /** The footer key naming the format, and its value in files written now. */
    static final String FORMAT_KEY = "period-tables.archive.format";

    static final String FORMAT = "2";

    /** What a data file's name ends with; in-progress files end otherwise and start with a dot. */
    static final String SUFFIX = ".parquet";

    private ArchiveParquet() {}

    /** The format 2 schema with {@code columns}. */
    static MessageType schema(List<ArchiveColumn> columns) {
        Types.MessageTypeBuilder message = Types.buildMessage();
        message.required(PrimitiveTypeName.BINARY)
                .as(LogicalTypeAnnotation.stringType())
                .named("device");
        message.required(PrimitiveTypeName.INT64)
                .as(LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MILLIS))
                .named("event_time");
        message.optional(PrimitiveTypeName.BINARY)
                .as(LogicalTypeAnnotation.stringType())
                .named("event_id");
        for (ArchiveColumn column : columns) {
            switch (column.type()) {
                case DOUBLE -> message.optional(PrimitiveTypeName.DOUBLE).named(column.name());
                case BIGINT -> message.optional(PrimitiveTypeName.INT64).named(column.name());
                case BOOLEAN -> message.optional(PrimitiveTypeName.BOOLEAN).named(column.name());
                case STRING ->
                    message.optional(PrimitiveTypeName.BINARY)
                            .as(LogicalTypeAnnotation.stringType())
                            .named(column.name());
            }
        }
        message.required(PrimitiveTypeName.BINARY)
                .as(LogicalTypeAnnotation.stringType())
                .named("attributes");
        message.required(PrimitiveTypeName.BINARY)
                .as(LogicalTypeAnnotation.stringType())
                .named("pk");
        message.required(PrimitiveTypeName.BINARY)
                .as(LogicalTypeAnnotation.stringType())
                .named("sk");
        message.optional(PrimitiveTypeName.INT64).named("ttl");
        return message.named("archived_reading");
    }

    /** The typed column a format 2 file's field is, or null for the archive's own columns. */
    static ArchiveColumn columnOf(org.apache.parquet.schema.Type field) {
        if (ArchiveColumn.FIXED.contains(field.getName()) || !field.isPrimitive()) {
            return null;
        }
        ArchiveColumn.Type type = switch (field.asPrimitiveType().getPrimitiveTypeName()) {
            case DOUBLE -> ArchiveColumn.Type.DOUBLE;
            case INT64 -> ArchiveColumn.Type.BIGINT;
            case BOOLEAN -> ArchiveColumn.Type.BOOLEAN;
            case BINARY -> ArchiveColumn.Type.STRING;
            default -> null;
        };
        return type == null ? null : new ArchiveColumn(field.getName(), type);
    }

    /** The bulk writer factory of {@code FileSink}: one Parquet file per part file, its rows sorted. */
    static BulkWriter.Factory<ArchiveRow> writerFactory(List<ArchiveColumn> columns) {
        return new SortingFactory(new ParquetWriterFactory<>(out -> new Builder(out, columns)
                .withCompressionCodec(CompressionCodecName.GZIP)
                .build()));
    }

    /** Rows of a file in the order they are written: device, event time, sort key. */
    static final Comparator<ArchiveRow> ORDER = Comparator.comparing(ArchiveRow::device)
            .thenComparingLong(ArchiveRow::eventMillis)
            .thenComparing(ArchiveRow::sk);

    /**
     * Holds a part file's rows until it is finished (the file sink rolls part files at every
     * checkpoint, so that is one checkpoint interval of one subtask's rows of one folder), then
     * writes them sorted.
     */
    private static final class SortingFactory implements BulkWriter.Factory<ArchiveRow> {
        private static final long serialVersionUID = 1L;

        private final BulkWriter.Factory<ArchiveRow> parquet;

        SortingFactory(BulkWriter.Factory<ArchiveRow> parquet) {
            this.parquet = parquet;
        }

        @Override
        public BulkWriter<ArchiveRow> create(FSDataOutputStream out) throws IOException {
            BulkWriter<ArchiveRow> file = parquet.create(out);
            List<ArchiveRow> rows = new ArrayList<>();
            return new BulkWriter<>() {
                @Override
                public void addElement(ArchiveRow row) {
                    rows.add(row);
                }

                @Override
                public void flush() {
                    // Rows are written sorted when the file is finished.
                }

                @Override
                public void finish() throws IOException {
                    rows.sort(ORDER);
                    for (ArchiveRow row : rows) {
                        file.addElement(row);
                    }
                    rows.clear();
                    file.finish();
                }
            };
        }
    }

    private static final class Builder extends ParquetWriter.Builder<ArchiveRow, Builder> {
        private final List<ArchiveColumn> columns;

        Builder(OutputFile out, List<ArchiveColumn> columns) {
            super(out);
            this.columns = columns;
            withConf(new PlainParquetConfiguration());
            withCodecFactory(GzipCodecs.INSTANCE);
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<ArchiveRow> getWriteSupport(Configuration conf) {
            return new RowWriteSupport(columns);
        }

        @Override
        protected WriteSupport<ArchiveRow> getWriteSupport(ParquetConfiguration conf) {
            return new RowWriteSupport(columns);
        }
    }

    /** Writes the columns of a row, a configured field's value in its column when it fits. */
    private static final class RowWriteSupport extends WriteSupport<ArchiveRow> {
        private final List<ArchiveColumn> columns;
        private final MessageType schema;
        private RecordConsumer consumer;

        RowWriteSupport(List<ArchiveColumn> columns) {
            this.columns = columns;
            this.schema = schema(columns);
        }

        @Override
        public WriteContext init(Configuration configuration) {
            return new WriteContext(schema, Map.of(FORMAT_KEY, FORMAT));
        }

        @Override
        public WriteContext init(ParquetConfiguration configuration) {
            return new WriteContext(schema, Map.of(FORMAT_KEY, FORMAT));
        }

        @Override
        public void prepareForWrite(RecordConsumer recordConsumer) {
            this.consumer = recordConsumer;
        }

        @Override
        public void write(ArchiveRow row) {
            consumer.startMessage();
            int index = 0;
            string(index++, "device", row.device());
            consumer.startField("event_time", index);
            consumer.addLong(row.eventMillis());
            consumer.endField("event_time", index++);
            if (row.eventId() != null) {
                string(index, "event_id", row.eventId());
            }
            index++;
            String attributes = row.attributes();
            if (!columns.isEmpty()) {
                Map<String, AttributeValue> rest = row.otherAttributes();
                for (ArchiveColumn column : columns) {
                    Object value = column.value(rest.get(column.name()));
                    if (value != null) {
                        rest.remove(column.name());
                        typed(index, column, value);
                    }
                    index++;
                }
                attributes = ItemAttributes.toJson(rest);
            }
            string(index++, "attributes", attributes);
            string(index++, "pk", row.pk());
            string(index++, "sk", row.sk());
            if (row.ttl() != null) {
                consumer.startField("ttl", index);
                consumer.addLong(row.ttl());
                consumer.endField("ttl", index);
            }
            consumer.endMessage();
        }

        private void typed(int index, ArchiveColumn column, Object value) {
            consumer.startField(column.name(), index);
            switch (column.type()) {
                case DOUBLE -> consumer.addDouble((Double) value);
                case BIGINT -> consumer.addLong((Long) value);
                case BOOLEAN -> consumer.addBoolean((Boolean) value);
                case STRING -> consumer.addBinary(Binary.fromString((String) value));
            }
            consumer.endField(column.name(), index);
        }

        private void string(int index, String name, String value) {
            consumer.startField(name, index);
            consumer.addBinary(Binary.fromString(value));
            consumer.endField(name, index);
        }
    }
}
