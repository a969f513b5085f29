package io.periodtables.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.periodtables.emulators.Dynalite;
import io.periodtables.emulators.ListeningSockets;
import io.periodtables.job.PeriodTablesJob;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The local run as a user starts it: a separate JVM running {@link LocalRunner} with the local
 * logging configuration, and the job's {@code main} on a plain JVM.
 */
class LocalRunnerITCase {
    private static final Pattern KINESALITE_PID = Pattern.compile("kinesalite \\(node, pid (\\d+)\\)");
    private static final Pattern DYNAMODB_PID = Pattern.compile("dynalite \\(pid (\\d+)\\)");
    /** An emulator's own INFO line on the console (the layout prints the logger's simple name). */
    private static final Pattern EMULATOR_INFO =
            Pattern.compile(" INFO  (Dynalite|Kinesalite|NodeProcess|S3Emulator|FaultServer) - ");

    /** The runs' working directory: their .flink-local (savepoints, log, chart) goes away with it. */
    @TempDir
    static Path workDir;

    @Test
    void badConfigurationPrintsOneLineAndExitsNonZero() throws Exception {
        ChildJvm run = ChildJvm.start(workDir, LocalRunner.class, "--tables.shards", "0");
        run.waitFor();
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.stderr().strip())
                .isEqualTo("Invalid configuration: tables.shards = '0': expected a whole number from 1 to 100");
    }

    @Test
    void helpListsTheOptionsAndAMistypedOneGetsTheNearest(@TempDir Path dir) throws Exception {
        ChildJvm help = ChildJvm.start(dir, LocalRunner.class, "--help");
        help.waitFor();
        assertThat(help.exitCode()).as(help.stdout() + help.stderr()).isZero();
        assertThat(help.stdout())
                .startsWith("Usage: ./run-local ")
                .contains("--duration D", "--from-savepoint PATH", "--stream-shards N", "--serve", "--config FILE");

        ChildJvm typo = ChildJvm.start(dir, LocalRunner.class, "--duraton", "PT5S");
        typo.waitFor();
        assertThat(typo.exitCode()).isEqualTo(2);
        assertThat(typo.stderr().strip())
                .isEqualTo(
                        "Unknown option '--duraton' (did you mean '--duration'?); ./run-local --help lists the options");
        try (var files = Files.walk(dir)) {
            assertThat(files.filter(Files::isRegularFile))
                    .as("files the refused start left")
                    .isEmpty();
        }
    }

    /** A setting only the topology checks stops the run before it touches the last run's data. */
    @Test
    void badArchivePathStopsBeforeTheLastRunsDataIsDeleted(@TempDir Path dir) throws Exception {
        Path earlier = dir.resolve(".flink-local/dynamodb/000005.ldb");
        Files.createDirectories(earlier.getParent());
        Files.writeString(earlier, "an earlier run's tables");
        ChildJvm run = ChildJvm.start(dir, LocalRunner.class, "--archive.path", "s4://bucket/x");
        run.waitFor();
        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isEqualTo(2);
        assertThat(run.stderr().strip())
                .startsWith("Invalid configuration: archive.path = 's4://bucket/x': Flink has no file system for the "
                        + "scheme 's4'")
                .contains("not in the job's jar")
                .doesNotContain("\n");
        assertThat(run.stdout()).doesNotContain("dynalite", "Flink Web UI");
        assertThat(earlier).hasContent("an earlier run's tables");
    }

    /** --stream-shards only sizes the run's own Kinesis stream: without it, it is refused, not ignored. */
    @Test
    void streamShardsWithoutTheLocalKinesisStreamIsRefused(@TempDir Path dir) throws Exception {
        ChildJvm run = ChildJvm.start(dir, LocalRunner.class, "--stream-shards", "2", "--duration", "PT1S");
        run.waitFor();
        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isEqualTo(2);
        assertThat(run.stderr().strip())
                .startsWith("Invalid argument: --stream-shards sizes the run's own Kinesis stream")
                .doesNotContain("\n");
        assertThat(run.stdout()).doesNotContain("dynalite", "Flink Web UI");
    }

    /**
     * A Kinesis run's stream lives in its own kinesalite, gone with the run: its savepoint is refused in
     * one line before anything starts, not restored onto a new stream (which the job would refuse).
     */
    @Test
    void aSavepointOfALocalKinesisRunIsRefusedInOneLine(@TempDir Path dir) throws Exception {
        Path savepoint = Files.createDirectories(dir.resolve("savepoint-kinesis"));
        Files.writeString(savepoint.resolve("_metadata"), "");
        Files.writeString(savepoint.resolve(RunSettings.SAVED), "source=kinesis\ngenerator.speedup=1\n");
        ChildJvm run = ChildJvm.start(
                dir, LocalRunner.class, "--from-savepoint", savepoint.toUri().toString());
        run.waitFor();
        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isEqualTo(2);
        assertThat(run.stderr().strip())
                .startsWith("Invalid argument: --from-savepoint resumes a run of the demo fleet; a --source kinesis")
                .doesNotContain("\n");
        assertThat(run.stdout()).doesNotContain("kinesalite", "Flink Web UI");
    }

    @Test
    void aMissingSavepointIsOneLineAndNoSummary(@TempDir Path dir) throws Exception {
        ChildJvm run = ChildJvm.start(dir, LocalRunner.class, "--from-savepoint", "file:/nowhere/savepoint-0");
        run.waitFor();
        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isEqualTo(2);
        assertThat(run.stderr().strip())
                .startsWith("Invalid argument: --from-savepoint 'file:/nowhere/savepoint-0': no savepoint there")
                .doesNotContain("\n");
        assertThat(run.stdout()).doesNotContain("Savepoint", "table", "dynalite");
    }

    @Test
    void demoWritesEverythingItReadsEndsCleanlyAndListensOnLoopbackOnly(@TempDir Path archive) throws Exception {
        String archivePath = archive.toUri().toString();
        ChildJvm run = DemoRun.in(workDir)
                .with("archive.path", archivePath)
                // 20 s, not 15: with DynamoDB's table states (500 ms of CREATING / UPDATING each, as
                // the fidelity layer has them since issue 38) 15 s closed and marked only two periods
                .with("duration", "PT20S")
                .fleet(500, 50)
                .with("tables.shards", "2")
                .with("sink.max-buffered", "250")
                .with("sink.max-in-flight", "4")
                .with("tables.retention", "PT1H")
                .with("tables.prefix", "localrun")
                .with("rollups.every", "PT10S,PT1M")
                .start();
        run.awaitOutput("readings/s | in ");
        Matcher pid = DYNAMODB_PID.matcher(run.stdout());
        assertThat(pid.find()).as(run.stdout()).isTrue();
        List<InetSocketAddress> sockets = new ArrayList<>(listening(run.pid()));
        sockets.addAll(listening(Long.parseLong(pid.group(1))));
        run.waitFor();

        String out = run.stdout();
        assertThat(run.exitCode()).as(out + run.stderr()).isZero();
        // The Web UI, the blob server, dynalite: each on 127.0.0.1, none on another interface.
        assertThat(sockets)
                .as("listening sockets of the run and its dynalite")
                .allSatisfy(a -> assertThat(a.getAddress().isLoopbackAddress())
                        .as(a.toString())
                        .isTrue())
                .extracting(InetSocketAddress::getPort)
                .contains(
                        port(out, "Flink Web UI: http://127.0.0.1:"),
                        port(out, "dynalite \\(pid \\d+\\) at http://127.0.0.1:"));
        LocalRunSummary summary = LocalRunSummary.parse(out, "localrun");
        assertThat(summary.periodTables()).as(out).isNotEmpty();
        // the derived tables are listed too, outside the total: 50 devices' newest readings, rollups
        assertThat(summary.items()).as(out).containsEntry("localrun_latest", 50L);
        assertThat(summary.items().keySet()).as(out).anyMatch(t -> t.startsWith("localrun_rollups_"));
        summary.assertTotalsMatchTables();
        // the fleet sends no bad input, and the drain writes what event time, 20 times the wall
        // clock's, put in the tables the owner created: nothing is refused as ahead of the watermark
        assertThat(summary.rejected()).as(out).isZero();
        // Nothing but the status, the job's INFO lines and the summary: no warnings, no stack traces.
        assertThat(out + run.stderr()).doesNotContain(" WARN ", " ERROR ", "Exception", "\tat ");
        // the emulators' own lines are in the run's log file, not on the console
        assertThat(out.lines()).as(out).noneMatch(EMULATOR_INFO.asPredicate());
        assertThat(Files.readString(workDir.resolve(".flink-local/flink.log")))
                .contains("dynalite listening on")
                // the latest table is created with the first tables: no latest writer meets it CREATING
                .doesNotContain("REFUSED localrun_latest item call while CREATING");
        // The run creates its first two periods' tables and their rollups tables before the job starts: no
        // write waits for one. (Later ones are the rotation's, ahead by rotation.lead of event time, which runs
        // 20 times the wall clock's here: on a loaded machine a write may still meet one not yet there.)
        List<String> firstPeriods = summary.periodTables().keySet().stream()
                .sorted()
                .limit(2)
                .map(table -> table.substring("localrun_".length()))
                .toList();
        for (String label : firstPeriods) {
            assertThat(out)
                    .doesNotContain("Table localrun_" + label + " did not exist")
                    .doesNotContain("Table localrun_rollups_" + label + " did not exist");
        }
        assertThat(out)
                .contains(
                        "Flink Web UI: http://127.0.0.1:",
                        "Stopped after PT20S.",
                        "pipeline drained",
                        "Savepoint: file:",
                        "Data: dynalite at http://127.0.0.1:",
                        "One device: ./query/run-query range --device device-00007 --from ");
        // the printed commands draw beside the summary's own charts, not in the repository's root
        assertThat(out)
                .contains("--chart .flink-local/device-00007.svg", "--chart .flink-local/device-00007-rollups.svg");
        // The archive: each marked period's distinct keys are its table's items, and the drained
        // stop left the period it ended in unmarked.
        Matcher archived = Pattern.compile("(?m)^period=(\\S+)\\s+([\\d,]+)\\s+([\\d,]+)\\s+([\\d,]+)  archived$")
                .matcher(out);
        int marked = 0;
        while (archived.find()) {
            marked++;
            Matcher itsTable = Pattern.compile("(?m)^localrun_" + Pattern.quote(archived.group(1)) + "\\s+([\\d,]+)")
                    .matcher(out);
            assertThat(itsTable.find()).as(out).isTrue();
            assertThat(LocalRunSummary.number(archived.group(3)))
                    .as(archived.group())
                    .isEqualTo(LocalRunSummary.number(itsTable.group(1)));
        }
        assertThat(out).contains("Archive " + archivePath.replaceAll("/$", ""));
        // once, for the graph the run submits (the start's check builds one too)
        assertThat(out).containsOnlyOnce("PeriodTablesTopology - Archiving to ");
        // One at least, each checked against its table above: the demo's compressed event time
        // runs as fast as the machine lets it, and on a busy CI machine its 20 s reached 13:15:40
        // of event time from 13:14:27 (its first table ready after 12.7 s), which closes 13:14 only.
        assertThat(marked).as(out).isGreaterThanOrEqualTo(1);
        assertThat(out).as("the period open at the stop").contains("open: no _SUCCESS until a run closes the period");
        // The summary drew that device with the query CLI: a panel per metric of the fleet.
        Matcher chart = Pattern.compile("(?m)^Its chart: (\\S+\\.svg)$").matcher(out);
        assertThat(chart.find()).as(out).isTrue();
        assertThat(Files.readString(workDir.resolve(chart.group(1))))
                .contains("device-00007: ", ">temperature<", ">humidity<", ">pressure<");
        // Its last buckets of the finest grain, read from the rollups tables, and their chart.
        assertThat(out).contains("Its rollups: ./query/run-query rollup --device device-00007 ");
        Matcher rollupChart = Pattern.compile("(?m)^Its rollup chart \\(min-max band, average line\\): (\\S+\\.svg)$")
                .matcher(out);
        assertThat(rollupChart.find()).as(out).isTrue();
        assertThat(Files.readString(workDir.resolve(rollupChart.group(1))))
                .contains("line: average   band: minimum to maximum", ">temperature<");
    }

    /**
     * {@code --source kinesis}: the fleet put into kinesalite and read by the production source.
     * Ended by SIGTERM as by Ctrl-C: the feeder stops, the job reads the stream to its end and
     * drains, so everything put is in exactly one table, and kinesalite is gone with the run.
     */
    @Test
    void kinesisSourceReadsEverythingTheFeederPutAndStopsKinesaliteOnSigterm() throws Exception {
        ChildJvm run = DemoRun.kinesis(workDir)
                .with("stream-shards", "2")
                .with("tables.shards", "2")
                .with("tables.retention", "PT1H")
                .with("sink.max-buffered", "250")
                .with("sink.max-in-flight", "4")
                .with("tables.prefix", "kinesisrun")
                .start();
        run.awaitOutput("readings/s | in ");
        Matcher node = KINESALITE_PID.matcher(run.stdout());
        assertThat(node.find()).as(run.stdout()).isTrue();
        long nodePid = Long.parseLong(node.group(1));
        List<InetSocketAddress> sockets = new ArrayList<>(listening(run.pid()));
        sockets.addAll(listening(nodePid));
        // A few seconds of feeding and reading, then the signal Ctrl-C sends but for a terminal.
        run.awaitLines("readings/s | in ", 5);
        run.process().destroy();
        run.waitFor();

        String out = run.stdout();
        assertThat(run.exitCode()).as(out + run.stderr()).isZero();
        assertThat(ProcessHandle.of(nodePid).map(ProcessHandle::isAlive))
                .as("kinesalite after the run")
                .isNotEqualTo(Optional.of(true));
        assertThat(sockets)
                .as("listening sockets of the run and its kinesalite")
                .allSatisfy(a -> assertThat(a.getAddress().isLoopbackAddress())
                        .as(a.toString())
                        .isTrue())
                .extracting(InetSocketAddress::getPort)
                .contains(port(out, "kinesalite \\(node, pid \\d+\\) at http://127.0.0.1:"));
        LocalRunSummary summary = LocalRunSummary.parse(out, "kinesisrun");
        assertThat(summary.periodTables()).as(out).isNotEmpty();
        summary.assertTotalsMatchTables();
        Matcher put = Pattern.compile("(?m)^Kinesis: ([\\d,]+) records put into stream period-tables-local "
                        + "\\(2 shards, kinesalite at http://127.0.0.1:\\d+\\), read from TRIM_HORIZON$")
                .matcher(out);
        assertThat(put.find()).as(out).isTrue();
        assertThat(summary.in())
                .as("read from the stream = put into it")
                .isEqualTo(LocalRunSummary.number(put.group(1)));
        // The run's clock is the fleet's: from its start, when the source reads the stream, to the stop, the
        // fleet puts 200 readings a second, so the summary's rate is the fleet's and not lowered by the
        // job's deployment (1 s of it here: 200 readings). ±0.05 s of the seconds' printed rounding.
        Matcher rate =
                Pattern.compile("(?m)^[\\d,]+ readings/s over ([\\d.]+) s").matcher(out);
        assertThat(rate.find()).as(out).isTrue();
        assertThat((double) summary.in())
                .as("readings the fleet put in the run's %s s", rate.group(1))
                .isCloseTo(200 * Double.parseDouble(rate.group(1)), within(200 * 0.05 + 1));
        assertThat(out)
                .containsPattern("(?m)^Kinesis: the fleet ran from [\\d.]+ s after the job's submission, once its"
                        + " source read every shard; when it stopped, the job had read [\\d,]+ of its records");
        assertThat(out + run.stderr()).doesNotContain(" WARN ", " ERROR ", "Exception", "\tat ");
        assertThat(out).contains("Stopped by SIGTERM.", "pipeline drained", "| put ");
        // once, for the graph the run submits: the start's check of the settings builds one too
        assertThat(out).containsOnlyOnce("PeriodTablesTopology - archive.path is not set");
        assertThat(out.lines()).as(out).noneMatch(EMULATOR_INFO.asPredicate());
    }

    @Test
    void jobMainOnAPlainJvmListensOnLoopbackOnly() throws Exception {
        try (Dynalite dynamoDb = Dynalite.start();
                DynamoDbClient client = dynamoDb.syncClient()) {
            ChildJvm job = ChildJvm.start(
                    workDir,
                    PeriodTablesJob.class,
                    "--dynamodb.endpoint",
                    dynamoDb.endpoint().toString(),
                    "--tables.prefix",
                    "plainjvm",
                    "--tables.period",
                    "PT1H",
                    "--generator.rate",
                    "50",
                    "--generator.devices",
                    "5",
                    "--input.max-future",
                    "P1D");
            try {
                // The job runs once its rotation has created a table.
                await().atMost(Duration.ofMinutes(2))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> {
                            assertThat(job.isAlive())
                                    .as(job.stdout() + job.stderr())
                                    .isTrue();
                            return client.listTables().tableNames().stream().anyMatch(t -> t.startsWith("plainjvm_"));
                        });
                // The REST endpoint and the blob server of the job's own MiniCluster.
                assertThat(listening(job.pid()))
                        .as("listening sockets of the job's JVM")
                        .hasSizeGreaterThanOrEqualTo(2)
                        .allSatisfy(a -> assertThat(a.getAddress().isLoopbackAddress())
                                .as(a.toString())
                                .isTrue());
            } finally {
                job.destroy();
            }
        }
    }

    private static List<InetSocketAddress> listening(long pid) {
        assumeThat(ListeningSockets.available()).as("Linux /proc").isTrue();
        return ListeningSockets.ofProcess(pid);
    }

    private static int port(String out, String before) {
        Matcher m = Pattern.compile(before + "(\\d+)").matcher(out);
        assertThat(m.find()).as(before + " in\n" + out).isTrue();
        return Integer.parseInt(m.group(1));
    }
}
