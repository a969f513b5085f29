package io.periodtables.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.periodtables.core.item.ArchiveColumn;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.Test;

/** docs/archive.md's Athena table has the columns, in order and with the types, of the files the archive writes. */
class ArchiveSchemaDocTest {

    @Test
    void theAthenaDdlMatchesTheParquetSchema() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "archive.md"));
        Matcher columns =
                Pattern.compile("here for `archive\\.columns=([^`]*)`").matcher(doc);
        assertThat(columns.find()).as("the DDL names its archive.columns").isTrue();
        Matcher ddl = Pattern.compile(
                        "CREATE EXTERNAL TABLE readings_archive \\((.*?)\\)\\s*PARTITIONED BY", Pattern.DOTALL)
                .matcher(doc);
        assertThat(ddl.find())
                .as("docs/archive.md has the CREATE EXTERNAL TABLE")
                .isTrue();

        List<String> documented = new ArrayList<>();
        for (String column : ddl.group(1).split(",")) {
            documented.add(column.strip().replaceAll("\\s+", " "));
        }
        List<String> written = new ArrayList<>();
        for (Type field :
                ArchiveParquet.schema(ArchiveColumn.parseList(columns.group(1))).getFields()) {
            written.add(field.getName() + " " + athenaType(field.asPrimitiveType()));
        }
        assertThat(documented).isEqualTo(written);
    }

    /** The Athena (Hive) type that reads a Parquet column. */
    private static String athenaType(PrimitiveType type) {
        LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
        return switch (type.getPrimitiveTypeName()) {
            case BINARY -> logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation ? "string" : "binary";
            case INT64 ->
                logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ? "timestamp" : "bigint";
            case DOUBLE -> "double";
            case BOOLEAN -> "boolean";
            default -> "unmapped " + type;
        };
    }
}
