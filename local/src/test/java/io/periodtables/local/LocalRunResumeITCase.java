package io.periodtables.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A local run stopped with a savepoint and resumed from it, as a user does: separate JVMs running
 * {@link LocalRunner}, then {@code --serve} and the query the summary printed. Its own class, so that
 * the local module's two test JVMs share the longest runs.
 */
class LocalRunResumeITCase {
    /**
     * A resume given only the savepoint runs with the first run's settings (here an archive, a
     * one-minute period and RocksDB, which its state and tables depend on); one given again must agree.
     */
    @Test
    void resumeTakesTheSettingsSavedWithItsSavepointAndServeAnswersItsQueries(@TempDir Path dir, @TempDir Path archive)
            throws Exception {
        ChildJvm first = DemoRun.in(dir)
                .with("archive.path", archive.toUri().toString())
                .with("duration", "PT8S")
                .with("tables.prefix", "resumed")
                .with("rollups.every", "PT10S")
                .with("state.backend", "rocksdb")
                .start();
        first.awaitOutput("readings/s | in ");
        assertThat(RestApi.checkpointConfig(first.stdout()))
                .as("the job's checkpoint configuration")
                .contains("\"state_backend\":\"EmbeddedRocksDBStateBackend\"", "FileSystemCheckpointStorage");
        first.waitFor();
        assertThat(first.exitCode()).as(first.stdout() + first.stderr()).isZero();
        assertThat(first.stdout()).contains("State backend: RocksDB (EmbeddedRocksDBStateBackend), incremental");
        Matcher savepoint = Pattern.compile("(?m)^Savepoint: (\\S+)$").matcher(first.stdout());
        assertThat(savepoint.find()).as(first.stdout()).isTrue();
        long firstWritten = LocalRunSummary.parse(first.stdout(), "resumed").written();
        // the period after the first run's newest table, where the resumed fleet goes on (or in that one)
        String newest = LocalRunSummary.parse(first.stdout(), "resumed").periodTables().keySet().stream()
                .max(String::compareTo)
                .orElseThrow();
        DateTimeFormatter label =
                DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HHmm").withZone(ZoneOffset.UTC);
        String next = "resumed_"
                + label.format(label.parse(newest.substring("resumed_".length()), Instant::from)
                        .plus(Duration.ofMinutes(1)));

        ChildJvm resumed =
                ChildJvm.start(dir, LocalRunner.class, "--from-savepoint", savepoint.group(1), "--duration", "PT15S");
        resumed.waitFor();
        String out = resumed.stdout();
        assertThat(resumed.exitCode()).as(out + resumed.stderr()).isZero();
        assertThat(out)
                .contains("Resuming from ", "State backend: RocksDB", "Savepoint: file:")
                .doesNotContain("Failure");
        LocalRunSummary summary = LocalRunSummary.parse(out, "resumed");
        assertThat(summary.in()).isPositive().isEqualTo(summary.written() + summary.late() + summary.rejected());
        assertThat(summary.periodTables().values().stream()
                        .mapToLong(Long::longValue)
                        .sum())
                .as("the tables hold both runs' readings")
                .isEqualTo(firstWritten + summary.written());
        assertThat(out).contains("Archive " + archive.toUri().toString().replaceAll("/$", ""));
        assertThat(out).contains("Its chart: ").doesNotContain("No chart:");
        // The resume creates that next table before its job restores, as a new run its first ones: its first
        // writes do not wait for the job to create it (old code: 'Created table resumed_… at tier CURRENT
        // (1000/300): readings for its period arrived while it is open', the first seconds backpressured).
        assertThat(out).doesNotContain("Created table " + next + " at tier");
        // The open period tables told apart (both at the current tier and capacity, which alone showed two
        // tables 'CURRENT 2858/300'): the last one holding readings is the open one.
        Matcher open = Pattern.compile("(?m)^resumed_\\S+ +[\\d,]+  CURRENT +\\S+  \\(open: the newest readings\\)$")
                .matcher(out);
        assertThat(open.results().count()).as(out).isEqualTo(1);
        assertThat(out.lines().filter(l -> l.contains("(next, prebuilt: no reading yet)")))
                .as(out)
                .allSatisfy(l -> assertThat(l).matches("resumed_\\S+ +0  CURRENT .*"));
        // the summary says what the tables' total holds besides this run's readings, and times no first table
        assertThat(out)
                .contains(String.format("includes %,d readings stored before this run", firstWritten))
                .doesNotContain("first table ready");

        ChildJvm refused = ChildJvm.start(
                dir, LocalRunner.class, "--from-savepoint", savepoint.group(1), "--tables.period", "PT1H");
        refused.waitFor();
        assertThat(refused.exitCode()).isEqualTo(2);
        assertThat(refused.stderr().strip())
                .startsWith("Invalid argument: --tables.period PT1H differs from the run saved with ")
                .doesNotContain("\n");
        ChildJvm otherBackend = ChildJvm.start(
                dir, LocalRunner.class, "--from-savepoint", savepoint.group(1), "--state.backend", "hashmap");
        otherBackend.waitFor();
        assertThat(otherBackend.exitCode()).isEqualTo(2);
        assertThat(otherBackend.stderr().strip())
                .startsWith("Invalid argument: --state.backend hashmap differs from the run saved with ")
                .endsWith("(rocksdb): a resume keeps its run's settings; leave it out")
                .doesNotContain("\n");

        // After the run its dynalite is gone: --serve brings the data back where the printed query finds it.
        ChildJvm serve = ChildJvm.start(dir, LocalRunner.class, "--serve");
        try {
            serve.awaitOutput("serves the local run's data in .flink-local/dynamodb at http://127.0.0.1:");
            LocalRunSummary.assertPrintedQueryAnswers(out, dir);
            // The resume continues the first run's event-time line: the device's readings are as far apart
            // across the resume as within a run (here 2 event-seconds), not by the time between the runs.
            List<Instant> times = LocalRunSummary.printedQueryTimes(out, dir);
            List<Duration> gaps = new ArrayList<>();
            for (int i = 1; i < times.size(); i++) {
                gaps.add(Duration.between(times.get(i - 1), times.get(i)));
            }
            Duration usual = gaps.stream().sorted().toList().get(gaps.size() / 2);
            assertThat(gaps)
                    .as("gaps between readings of the device, usually %s", usual)
                    .allSatisfy(gap -> assertThat(gap).isLessThanOrEqualTo(usual.multipliedBy(3)));
        } finally {
            serve.process().destroy();
            serve.waitFor();
        }
    }
}
