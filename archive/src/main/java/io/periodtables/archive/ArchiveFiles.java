package io.periodtables.archive;

import io.periodtables.core.item.ArchiveColumn;
import io.periodtables.core.item.ItemAttributes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Reads the archive's committed files through Flink's file systems ({@code file://} and, on
 * Managed Service for Apache Flink, {@code s3://}). Only committed files are seen: Flink's
 * {@code FileSink} keeps in-progress and pending files hidden (a leading dot on local and
 * Hadoop file systems, an unfinished multipart upload on S3) until the checkpoint commits them.
 */
final class ArchiveFiles {

    private ArchiveFiles() {}

    /** The committed data files of one partition folder, by name; empty when the folder does not exist. */
    static List<FileStatus> committed(Path partition) throws IOException {
        FileSystem fs = partition.getFileSystem();
        if (!fs.exists(partition)) {
            return List.of();
        }
        FileStatus[] listed = fs.listStatus(partition);
        List<FileStatus> files = new ArrayList<>();
        for (FileStatus status : listed == null ? new FileStatus[0] : listed) {
            String name = status.getPath().getName();
            if (!status.isDir()
                    && !name.startsWith(".")
                    && !name.startsWith("_")
                    && name.endsWith(ArchiveParquet.SUFFIX)) {
                files.add(status);
            }
        }
        files.sort(Comparator.comparing(f -> f.getPath().getName()));
        return files;
    }

    /** The number of rows of a data file, from its footer. */
    static long rows(FileStatus file) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(ArchiveInputFiles.streamed(file), options())) {
            return reader.getRecordCount();
        }
    }

    /** Every row of a data file of either format, filed under {@code partition}. */
    static void read(FileStatus file, String partition, Consumer<ArchiveRow> rows) throws IOException {
        readColumns(
                ArchiveInputFiles.streamed(file),
                schema -> schema.containsField("device")
                        ? new Plan(schema, formatTwo(file, schema, partition, rows))
                        : new Plan(ArchiveParquet.SCHEMA_V1, group -> {
                            String sk = group.getString("sk", 0);
                            rows.accept(new ArchiveRow(
                                    partition,
                                    null,
                                    ArchiveRow.eventMillisOf(sk),
                                    null,
                                    group.getString("pk", 0),
                                    sk,
                                    ttl(group),
                                    group.getString("attributes", 0)));
                        }));
    }

    /** Rows of a format 2 file: its typed columns go back into the attributes. */
    private static Consumer<Group> formatTwo(
            FileStatus file, MessageType schema, String partition, Consumer<ArchiveRow> rows) {
        List<ArchiveColumn> typed = new ArrayList<>();
        for (org.apache.parquet.schema.Type field : schema.getFields()) {
            ArchiveColumn column = ArchiveParquet.columnOf(field);
            if (column != null) {
                typed.add(column);
            }
        }
        return group -> {
            String attributes = group.getString("attributes", 0);
            if (!typed.isEmpty()) {
                Map<String, AttributeValue> all;
                try {
                    all = ItemAttributes.ofJsonObject(attributes);
                } catch (IOException e) {
                    throw new UncheckedIOException("attributes of a row of " + file.getPath() + " are not JSON", e);
                }
                for (ArchiveColumn column : typed) {
                    if (group.getFieldRepetitionCount(column.name()) > 0) {
                        all.put(column.name(), column.attribute(typedValue(group, column)));
                    }
                }
                attributes = ItemAttributes.toJson(all);
            }
            rows.accept(new ArchiveRow(
                    partition,
                    group.getString("device", 0),
                    group.getLong("event_time", 0),
                    group.getFieldRepetitionCount("event_id") == 0 ? null : group.getString("event_id", 0),
                    group.getString("pk", 0),
                    group.getString("sk", 0),
                    ttl(group),
                    attributes));
        };
    }

    private static Long ttl(Group group) {
        return group.getFieldRepetitionCount("ttl") == 0 ? null : group.getLong("ttl", 0);
    }

    private static Object typedValue(Group group, ArchiveColumn column) {
        return switch (column.type()) {
            case DOUBLE -> group.getDouble(column.name(), 0);
            case BIGINT -> group.getLong(column.name(), 0);
            case BOOLEAN -> group.getBoolean(column.name(), 0);
            case STRING -> group.getString(column.name(), 0);
        };
    }

    /** Every row of a data file as Parquet shows it, all columns. */
    static void readGroups(InputFile file, Consumer<Group> rows) throws IOException {
        readColumns(file, schema -> new Plan(schema, rows));
    }

    /** The file's schema, from its footer. */
    static MessageType schemaOf(InputFile file) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(file, options())) {
            return reader.getFileMetaData().getSchema();
        }
    }

    /** The keys of every row of a data file, as {@code pk + '\u0000' + sk} (neither holds a NUL). */
    static void readKeys(FileStatus file, Consumer<String> keys) throws IOException {
        readColumns(
                ArchiveInputFiles.streamed(file),
                schema -> new Plan(
                        new MessageType(schema.getName(), schema.getType("pk"), schema.getType("sk")),
                        group -> keys.accept(group.getString("pk", 0) + '\u0000' + group.getString("sk", 0))));
    }

    /** The columns to read of a file, chosen from its schema, and what takes each row. */
    private record Plan(MessageType columns, Consumer<Group> rows) {}

    /** Opens the file once: its footer's schema picks the {@link Plan}, then its row groups are read. */
    private static void readColumns(InputFile file, Function<MessageType, Plan> planner) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(file, options())) {
            MessageType fileSchema = reader.getFileMetaData().getSchema();
            Plan plan = planner.apply(fileSchema);
            reader.setRequestedSchema(plan.columns());
            PageReadStore pages;
            while ((pages = reader.readNextRowGroup()) != null) {
                RecordReader<Group> records = new ColumnIOFactory()
                        .getColumnIO(plan.columns(), fileSchema)
                        .getRecordReader(pages, new GroupRecordConverter(plan.columns()));
                for (long i = 0; i < pages.getRowCount(); i++) {
                    plan.rows().accept(records.read());
                }
            }
        }
    }

    private static ParquetReadOptions options() {
        return ParquetReadOptions.builder(new PlainParquetConfiguration())
                .withCodecFactory(GzipCodecs.INSTANCE)
                .build();
    }
}
