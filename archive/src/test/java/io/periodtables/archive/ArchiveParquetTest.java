package io.periodtables.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.item.ArchiveColumn;
import io.periodtables.core.period.Period;
import io.periodtables.core.period.PeriodCalendar;
import io.periodtables.core.period.PeriodLength;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The analyst schema (format 2): typed columns, values that do not fit them, row order, format 1 still read. */
class ArchiveParquetTest {

    private static final Period PERIOD = new PeriodCalendar(PeriodLength.parse("PT1H"), ZoneOffset.UTC)
            .periodOf(Instant.parse("2026-11-22T13:20:00Z"));
    private static final String PARTITION = ArchivePartitions.period(PERIOD);
    private static final List<ArchiveColumn> COLUMNS =
            ArchiveColumn.parseList("temperature:double, count:bigint, status:string, ok:boolean");

    @TempDir
    java.nio.file.Path root;

    @Test
    void typedColumnsHoldWhatFitsAndTheJsonKeepsTheRest() throws IOException {
        ArchiveRow fits =
                row("dev-1", "13:20:00", "{\"count\":7,\"ok\":true,\"status\":\"up\",\"temperature\":21.5,\"x\":1}");
        // 0.1 + 0.2 is no double; 1E+19 is beyond a long; a string temperature; a number status.
        ArchiveRow misfits = row(
                "dev-1",
                "13:21:00",
                "{\"count\":1E+19,\"ok\":\"yes\",\"status\":3,\"temperature\":0.30000000000000000001}");
        ArchiveRow none = row("dev-2", "13:20:00", "{}");
        write("part-a-0.parquet", COLUMNS, List.of(misfits, none, fits));

        assertThat(ArchiveFiles.schemaOf(ArchiveInputFiles.streamed(file("part-a-0.parquet")))
                        .toString())
                .contains("required binary device (STRING)")
                .contains("required int64 event_time (TIMESTAMP(MILLIS,true))")
                .contains("optional double temperature")
                .contains("optional int64 count")
                .contains("optional binary status (STRING)")
                .contains("optional boolean ok");
        List<Group> raw = rawRows("part-a-0.parquet");
        assertThat(raw.get(0).getDouble("temperature", 0)).isEqualTo(21.5);
        assertThat(raw.get(0).getLong("count", 0)).isEqualTo(7L);
        assertThat(raw.get(0).getString("attributes", 0)).isEqualTo("{\"x\":1}");
        assertThat(raw.get(1).getFieldRepetitionCount("temperature")).isZero();
        assertThat(raw.get(1).getString("attributes", 0))
                .isEqualTo("{\"count\":10000000000000000000,\"ok\":\"yes\",\"status\":3,"
                        + "\"temperature\":0.30000000000000000001}");

        // Read back, every attribute is where the item has it, numbers equal in value.
        List<ArchiveRow> read = read();
        assertThat(read).extracting(ArchiveRow::sk).containsExactly(fits.sk(), misfits.sk(), none.sk());
        assertThat(read.get(0).item()).isEqualTo(fits.item());
        assertThat(read.get(1).attributes()).isEqualTo(raw.get(1).getString("attributes", 0));
        assertThat(read.get(2)).isEqualTo(none);
    }

    @Test
    void rowsAreSortedByDeviceAndEventTime() throws IOException {
        List<ArchiveRow> rows = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            rows.add(row("dev-" + (7 * i % 5), "13:" + (10 + 11 * i % 40) + ":00", "{\"v\":" + i + "}"));
        }
        write("part-a-0.parquet", List.of(), rows);

        assertThat(read()).isSortedAccordingTo(ArchiveParquet.ORDER).containsExactlyInAnyOrderElementsOf(rows);
    }

    @Test
    void aFormatOneFileIsStillRead() throws IOException {
        Files.createDirectories(root.resolve(PARTITION));
        SimpleGroupFactory groups = new SimpleGroupFactory(ArchiveParquet.SCHEMA_V1);
        try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(
                        new LocalOutputFile(root.resolve(PARTITION).resolve("part-old-0.parquet")))
                .withConf(new PlainParquetConfiguration())
                .withCodecFactory(GzipCodecs.INSTANCE)
                .withCompressionCodec(CompressionCodecName.GZIP)
                .withType(ArchiveParquet.SCHEMA_V1)
                .build()) {
            writer.write(groups.newGroup()
                    .append("pk", "dev-1#3")
                    .append("sk", "2026-11-22T13:20:00.000Z#0000abcd")
                    .append("ttl", 1795000000L)
                    .append("attributes", "{\"t\":21.5}"));
        }

        assertThat(read())
                .containsExactly(new ArchiveRow(
                        PARTITION,
                        null,
                        Instant.parse("2026-11-22T13:20:00Z").toEpochMilli(),
                        null,
                        "dev-1#3",
                        "2026-11-22T13:20:00.000Z#0000abcd",
                        1795000000L,
                        "{\"t\":21.5}"));
    }

    private static ArchiveRow row(String device, String time, String attributes) {
        Instant at = Instant.parse("2026-11-22T" + time + "Z");
        String sk = at + "#" + Integer.toHexString(0x10000000 | attributes.hashCode() & 0xfffffff);
        return new ArchiveRow(PARTITION, device, at.toEpochMilli(), null, device, sk, null, attributes);
    }

    private void write(String name, List<ArchiveColumn> columns, List<ArchiveRow> rows) throws IOException {
        Files.createDirectories(root.resolve(PARTITION));
        Path file = new Path(ArchivePartitions.folder(root.toUri().toString(), PARTITION), name);
        try (FSDataOutputStream out = FileSystem.getLocalFileSystem().create(file, FileSystem.WriteMode.NO_OVERWRITE)) {
            BulkWriter<ArchiveRow> writer =
                    ArchiveParquet.writerFactory(columns).create(out);
            for (ArchiveRow row : rows) {
                writer.addElement(row);
            }
            writer.finish();
        }
    }

    private org.apache.flink.core.fs.FileStatus file(String name) throws IOException {
        Path path = new Path(ArchivePartitions.folder(root.toUri().toString(), PARTITION), name);
        return path.getFileSystem().getFileStatus(path);
    }

    private List<Group> rawRows(String name) throws IOException {
        List<Group> rows = new ArrayList<>();
        ArchiveFiles.readGroups(ArchiveInputFiles.fetched(file(name)), rows::add);
        return rows;
    }

    private List<ArchiveRow> read() throws IOException {
        List<ArchiveRow> rows = new ArrayList<>();
        new ArchiveReader(root.toUri().toString()).rows(PARTITION, rows::add);
        return rows;
    }
}
