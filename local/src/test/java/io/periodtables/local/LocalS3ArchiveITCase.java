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
import java.util.List;
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
 * summary ({@link LocalRunner#HOLD_PROPERTY}, as on a terminal) while the test reads the bucket.
 */
class LocalS3ArchiveITCase {
    private static final String ARCHIVE = "s3://demo/archive";

    @AfterAll
    static void defaultFileSystems() {
        FileSystem.initialize(new Configuration(), null);
    }

    @Test
    void s3ArchivePathStartsTheS3EmulatorArchivesThereAndPrintsDuckDbsCommand(
            @TempDir java.nio.file.Path dir, @TempDir java.nio.file.Path copy) throws Exception {
        ChildJvm run = ChildJvm.start(
                dir,
                List.of(LocalRunner.HOLD_PROPERTY + "=true"),
                LocalRunner.class,
                "--archive.path",
                ARCHIVE,
                // a bound: the test ends the run (SIGTERM) once a period is archived
                "--duration",
                "PT4M",
                "--tables.period",
                "PT1M",
                "--rotation.lead",
                "PT20S",
                "--window.allowed-lateness",
                "PT5S",
                "--generator.speedup",
                "20",
                "--generator.rate",
                "300",
                "--generator.devices",
                "30",
                "--input.max-future",
                "P1D",
                "--checkpoint.interval",
                "PT3S",
                "--tables.retention",
                "PT1H",
                "--tables.prefix",
                "s3run");
        try {
            run.awaitOutput("S3 emulator (s3proxy, pid ");
            Matcher emulator = Pattern.compile(
                            "(?m)^S3 emulator \\(s3proxy, pid \\d+\\) at (http://127.0.0.1:\\d+), bucket demo,"
                                    + " objects in memory: the archive lasts as long as this run$")
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

            // The archive ended with the emulator: its run cannot be resumed, which the summary says
            // instead of offering a resume, and a resume is refused at start.
            Matcher savepoint = Pattern.compile("(?m)^Savepoint: (\\S+)$").matcher(out);
            assertThat(savepoint.find()).as(out).isTrue();
            assertThat(out).doesNotContain("resume with").contains("  not resumable: its archive was on the local S3");
            ChildJvm resume = ChildJvm.start(dir, LocalRunner.class, "--from-savepoint", savepoint.group(1));
            resume.waitFor();
            assertThat(resume.exitCode()).as(resume.stdout() + resume.stderr()).isEqualTo(2);
            assertThat(resume.stderr().strip())
                    .startsWith("Invalid configuration: archive.path = 's3://demo/archive': its run archived to the"
                            + " local S3 emulator")
                    .doesNotContain("\n");
        } finally {
            run.destroy();
        }
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
