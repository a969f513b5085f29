package io.periodtables.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./run-local --archive.path s3://demo/archive}: the run starts the S3 emulator with the
 * bucket, archives there and prints the DuckDB command that reads it. The run is held after its
 * summary ({@link LocalRunner#HOLD_PROPERTY}, as on a terminal) while the test reads the bucket;
 * then a resume from its savepoint continues the archive on the emulator's files.
 */
class LocalS3ArchiveITCase {
    private static final String ARCHIVE = "s3://demo/archive";

    @AfterAll
    static void defaultFileSystems() {
        FileSystem.initialize(new Configuration(), null);
    }

    @Test
    void s3ArchivePathStartsTheS3EmulatorArchivesThereAndAResumeContinuesTheArchive(
            @TempDir java.nio.file.Path dir, @TempDir java.nio.file.Path copy) throws Exception {
        ChildJvm run = DemoRun.in(dir)
                .property(LocalRunner.HOLD_PROPERTY + "=true")
                .with("archive.path", ARCHIVE)
                // a bound: the test ends the run (SIGTERM) once a period is archived
                .with("duration", "PT4M")
                .fleet(300, 30)
                .with("checkpoint.interval", "PT3S")
                .with("tables.retention", "PT1H")
                .with("tables.prefix", "s3run")
                .start();
        try {
            run.awaitOutput("S3 emulator (s3proxy, pid ");
            Matcher emulator = Pattern.compile(
                            "(?m)^S3 emulator \\(s3proxy, pid \\d+\\) at (http://127.0.0.1:\\d+), bucket demo,"
                                    + " objects (.+)$")
                    .matcher(run.stdout());
            assertThat(emulator.find()).as(run.stdout()).isTrue();
            URI endpoint = URI.create(emulator.group(1));
            FileSystem.initialize(
                    Configuration.fromMap(Map.of(
                            "s3.endpoint", endpoint.toString(),
                            "s3.path.style.access", "true",
                            "s3.access-key", "local",
                            "s3.secret-key", "local-secret")),
                    null);
            // Ended as by Ctrl-C once a period is archived, whatever the machine's speed.
            await("a period's marker in the bucket")
                    .atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(500))
                    .ignoreExceptions()
                    .until(LocalS3ArchiveITCase::anyMarker);
            // SIGTERM through the handle: Process.destroy() would also close the run's standard input, its Enter.
            run.process().toHandle().destroy();
            run.awaitOutput("for the queries above; Enter or Ctrl-C stops them.");
            String out = run.stdout();
            assertThat(out + run.stderr()).doesNotContain(" WARN ", " ERROR ", "Exception", "\tat ");
            assertThat(out).contains("Stopped by SIGTERM.", "pipeline drained", "Archive " + ARCHIVE);

            // Each period the summary calls archived has its marker in the bucket, with the summary's rows.
            Map<String, Long> archived = new TreeMap<>();
            Matcher line = Pattern.compile("(?m)^period=(\\S+)\\s+([\\d,]+)\\s+[\\d,]+\\s+[\\d,]+  archived$")
                    .matcher(out);
            while (line.find()) {
                archived.put(line.group(1), LocalRunSummary.number(line.group(2)));
            }
            assertThat(archived).as(out).isNotEmpty();
            ObjectMapper json = new ObjectMapper();
            for (Map.Entry<String, Long> period : archived.entrySet()) {
                Path marker = new Path(ARCHIVE + "/period=" + period.getKey() + "/_SUCCESS");
                try (InputStream in = marker.getFileSystem().open(marker)) {
                    assertThat(json.readTree(in).path("rows").asLong())
                            .as(marker.toString())
                            .isEqualTo(period.getValue());
                }
            }

            // The printed DuckDB query, on a copy of the bucket's files (httpfs is not installed offline).
            // It loads httpfs, installed once beforehand: the command itself downloads nothing.
            Matcher duckDb = Pattern.compile(
                            "(?m)^  duckdb -c \"LOAD httpfs; SET s3_endpoint='127\\.0\\.0\\.1:"
                                    + endpoint.getPort() + "'; SET s3_url_style='path'; SET s3_use_ssl=false; .*"
                                    + "SET s3_access_key_id='local'; SET s3_secret_access_key='local-secret'; (SELECT [^\"]+)\"$")
                    .matcher(out);
            assertThat(duckDb.find()).as(out).isTrue();
            copyParquet(copy);
            String query = duckDb.group(1).replace(ARCHIVE, copy.toString());
            Map<String, Long> counted = new TreeMap<>();
            try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
                    Statement sql = db.createStatement();
                    ResultSet rows = sql.executeQuery(query)) {
                while (rows.next()) {
                    counted.put(rows.getString(1), rows.getLong(2));
                }
            }
            assertThat(counted).as(query).containsAllEntriesOf(archived);

            // The printed query command reads the tables and the archive on the emulator.
            LocalRunSummary.assertPrintedQueryAnswers(out, dir);

            run.process().getOutputStream().write('\n');
            run.process().getOutputStream().flush();
            run.waitFor();
            assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
            // The whole standard error, shutdown hooks included: Hadoop's printed a closed-classloader trace at exit.
            assertThat(run.stderr()).doesNotContain("Exception", "\tat ");

            // A resume from the savepoint finds the archive in the emulator's files and continues it.
            Matcher savepoint = Pattern.compile("(?m)^Savepoint: (\\S+)$").matcher(out);
            assertThat(savepoint.find()).as(out).isTrue();
            ChildJvm resume = ChildJvm.start(
                    dir, LocalRunner.class, "--from-savepoint", savepoint.group(1), "--duration", "PT15S");
            resume.waitFor();
            String resumed = resume.stdout();
            assertThat(resume.exitCode()).as(resumed + resume.stderr()).isZero();
            assertThat(emulator.group(2)).isEqualTo("in .flink-local/s3");
            assertThat(out).contains("  resume with ./run-local --from-savepoint " + savepoint.group(1));
            assertThat(resumed + resume.stderr()).doesNotContain(" WARN ", " ERROR ", "Exception", "\tat ");
            assertThat(resumed)
                    .contains(
                            "objects in .flink-local/s3 (the resumed run's archive goes on there)",
                            "Stopped after PT15S.",
                            "Archive " + ARCHIVE);
            // Every period of the first run, the one its stop left open included, is archived after the
            // resume; each holds its table's readings. (How many more the resume closes depends on how far
            // its compressed event time gets in 15 s on a busy machine, so the test asks for one.)
            Map<String, Long> archivedAfter = new TreeMap<>();
            Matcher after = Pattern.compile("(?m)^period=(\\S+)\\s+([\\d,]+)\\s+([\\d,]+)\\s+[\\d,]+  archived$")
                    .matcher(resumed);
            while (after.find()) {
                archivedAfter.put(after.group(1), LocalRunSummary.number(after.group(2)));
                assertThat(LocalRunSummary.number(after.group(3)))
                        .as(after.group())
                        .isEqualTo(tableItems(resumed, after.group(1)));
            }
            Matcher firstFolders = Pattern.compile("(?m)^period=(\\S+)\\s").matcher(out);
            while (firstFolders.find()) {
                assertThat(archivedAfter).as(resumed).containsKey(firstFolders.group(1));
            }
            assertThat(archivedAfter).as(resumed).containsAllEntriesOf(archived).hasSizeGreaterThan(archived.size());
        } finally {
            run.destroy();
        }
    }

    /** The items of a period's table as the summary lists them. */
    private static long tableItems(String out, String period) {
        Matcher table = Pattern.compile("(?m)^s3run_" + Pattern.quote(period) + "\\s+([\\d,]+)")
                .matcher(out);
        assertThat(table.find()).as("the table of %s in%n%s", period, out).isTrue();
        return LocalRunSummary.number(table.group(1));
    }

    private static boolean anyMarker() throws Exception {
        Path root = new Path(ARCHIVE);
        FileSystem s3 = root.getFileSystem();
        for (FileStatus folder : s3.listStatus(root)) {
            if (folder.getPath().getName().startsWith("period=") && s3.exists(new Path(folder.getPath(), "_SUCCESS"))) {
                return true;
            }
        }
        return false;
    }

    /** The archive's period folders' Parquet files, copied from the bucket into {@code target}. */
    private static void copyParquet(java.nio.file.Path target) throws Exception {
        Path root = new Path(ARCHIVE);
        FileSystem s3 = root.getFileSystem();
        for (FileStatus folder : s3.listStatus(root)) {
            String name = folder.getPath().getName();
            if (!name.startsWith("period=")) {
                continue;
            }
            java.nio.file.Path local = Files.createDirectories(target.resolve(name));
            for (FileStatus file : s3.listStatus(folder.getPath())) {
                if (file.getPath().getName().endsWith(".parquet")) {
                    try (InputStream in = s3.open(file.getPath())) {
                        Files.copy(in, local.resolve(file.getPath().getName()));
                    }
                }
            }
        }
    }
}
